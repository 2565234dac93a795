use rnic_driver::traffic::Session;
use rnic_driver::verbs::{ConnParams, Device, SendOp, SendWr, Sge};
use rnic_proto::host::regs;
use rnic_sim::dma_port::DmaConfig;
use rnic_sim::loopback::{LlpLoopback, LoopbackConfig};
use rnic_sim::tb::rnic::{DeviceConfig, SimDevice};
use rnic_sim::testbench::BackendKind;

#[test]
fn debug_one_write() {
    let cfg = DeviceConfig { backend: BackendKind::RustHdl, dma: DmaConfig { read: rnic_sim::dma_read::DmaReadConfig { latency: 10, ..Default::default() }, ..Default::default() }, seed: 1 };
    let t = std::time::Instant::now();
    let sim = SimDevice::new(cfg, Box::new(LlpLoopback::new(LoopbackConfig::full_speed(1)))).unwrap();
    eprintln!("built in {:?}", t.elapsed());
    let dev = Device::attach(sim, 1).unwrap();
    let mut s = Session::new(dev, 1, 2, 4096, ConnParams::default()).unwrap();
    eprintln!("session at cycle {} ({:?})", s.dev.sim().cycles(), t.elapsed());
    let p = s.pairs[0].clone();
    s.dev.write_mem(p.local_mr[0].addr, &[0xAB; 64]);
    let wr = SendWr { wr_id: 1, op: SendOp::RdmaWrite { remote_addr: p.remote_mr[1].addr, rkey: p.remote_mr[1].rkey }, sg_list: vec![Sge { addr: p.local_mr[0].addr, length: 64, lkey: p.local_mr[0].lkey }], signaled: true, fence: false };
    s.dev.post_send(p.qp[0], &wr).unwrap();
    for i in 0..12 {
        s.dev.run(100);
        let st = s.dev.sim().stats().clone();
        let d = s.dev.sim_mut();
        let status = d.mmio_read(regs::STATUS).unwrap();
        let aev0 = d.mmio_read(regs::qp_reg(0, regs::QP_AEV)).unwrap();
        let aev1 = d.mmio_read(regs::qp_reg(1, regs::QP_AEV)).unwrap();
        let cqpi = d.mmio_read(regs::cq_reg(0, regs::CQ_PI)).unwrap();
        eprintln!("t={} rdreq={} rdbeats={} wrbeats={} tx={:?} rx={:?} status={status:#x} aev0={aev0:#x} aev1={aev1:#x} cq0pi={cqpi}", i*100, st.dma_rd_requests, st.dma_rd_beats, st.dma_wr_beats, st.llp_tx_bytes, st.llp_rx_bytes);
    }
    eprintln!("{:?}", t.elapsed());
    eprintln!("mem {:x?}", s.dev.read_mem(p.remote_mr[1].addr, 16));
}
