//! The Verilator back end on hand-written Verilog shaped like rust-hdl's output.

use rand::{Rng, SeedableRng};
use rnic_sim::verilator::{BuildOptions, PortDir, VerilatedModel};
use std::path::PathBuf;
use std::time::Instant;

/// rust-hdl's shape: `$` in names, registers in sub-modules with `initial` blocks.
const REG: &str = r#"
module top(clock,s$data,s$valid,q,wide);
    input wire  clock;
    input wire  [7:0] s$data;
    input wire  s$valid;
    output reg  [7:0] q;
    output reg  [95:0] wide;
    reg  [7:0] r$d; wire [7:0] r$q; reg r$clock;
    top$r r(.d(r$d),.q(r$q),.clock(r$clock));
    always @(*) begin r$clock = clock; r$d = r$q; if (s$valid) begin r$d = s$data; end q = r$q; wide = {r$q, 88'h0}; end
endmodule // top
module top$r(d,q,clock);
    input wire [7:0] d; output reg [7:0] q; input wire clock;
    initial begin q = 8'ha5; end
    always @(posedge clock) begin q <= d; end
endmodule // top$r
"#;

/// 128- and 64-bit ports, combinational and registered.
const WIDE: &str = r#"
module top(clock,a,b,x,y,rx,ry,c);
    input wire clock;
    input wire [127:0] a;
    input wire [63:0] b;
    output reg [127:0] x;
    output reg [63:0] y;
    output reg [127:0] rx;
    output reg [63:0] ry;
    output reg [31:0] c;
    reg [127:0] ra$d; wire [127:0] ra$q; reg ra$clock;
    reg [63:0] rb$d; wire [63:0] rb$q; reg rb$clock;
    top$ra ra(.d(ra$d),.q(ra$q),.clock(ra$clock));
    top$rb rb(.d(rb$d),.q(rb$q),.clock(rb$clock));
    always @(*) begin
        ra$clock = clock; rb$clock = clock;
        x = ~a; y = b + 64'h1;
        ra$d = a; rb$d = b;
        rx = ra$q; ry = rb$q;
        c = a[127:96] ^ b[63:32];
    end
endmodule // top
module top$ra(d,q,clock);
    input wire [127:0] d; output reg [127:0] q; input wire clock;
    initial begin q = 128'h0123456789abcdef_fedcba9876543210; end
    always @(posedge clock) begin q <= d; end
endmodule // top$ra
module top$rb(d,q,clock);
    input wire [63:0] d; output reg [63:0] q; input wire clock;
    initial begin q = 64'hffffffff_00000001; end
    always @(posedge clock) begin q <= d; end
endmodule // top$rb
"#;

/// A counter, for the threads and the VCD.
const COUNTER: &str = r#"
module top(clock,enable,count);
    input wire clock;
    input wire enable;
    output reg [15:0] count;
    reg [15:0] c$d; wire [15:0] c$q; reg c$clock;
    top$c c(.d(c$d),.q(c$q),.clock(c$clock));
    always @(*) begin c$clock = clock; c$d = c$q; if (enable) begin c$d = c$q + 16'h1; end count = c$q; end
endmodule // top
module top$c(d,q,clock);
    input wire [15:0] d; output reg [15:0] q; input wire clock;
    initial begin q = 16'h0; end
    always @(posedge clock) begin q <= d; end
endmodule // top$c
"#;

/// A fresh, empty directory for a test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rnic-vl-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn to_words(v: u128) -> [u32; 4] {
    [
        v as u32,
        (v >> 32) as u32,
        (v >> 64) as u32,
        (v >> 96) as u32,
    ]
}

#[test]
fn registers_initial_values_and_clocking() {
    let mut m = VerilatedModel::build(REG).unwrap();
    let names: Vec<_> = m
        .ports()
        .iter()
        .map(|p| (p.name.as_str(), p.width, p.dir))
        .collect();
    assert_eq!(
        names,
        [
            ("clock", 1, PortDir::Input),
            ("s$data", 8, PortDir::Input),
            ("s$valid", 1, PortDir::Input),
            ("q", 8, PortDir::Output),
            ("wide", 96, PortDir::Output),
        ]
    );
    let (clock, data, valid, q, wide) = (
        m.port("clock").unwrap(),
        m.port("s$data").unwrap(),
        m.port("s$valid").unwrap(),
        m.port("q").unwrap(),
        m.port("wide").unwrap(),
    );
    // `initial` value visible before any clock.
    assert_eq!(m.get(q), 0xa5);
    let mut w = [0u32; 3];
    m.get_wide(wide, &mut w);
    assert_eq!(w, [0, 0, 0xa5 << 24]);

    // Inputs alone do not change a register.
    m.set(data, 0x42);
    m.set(valid, 1);
    m.eval();
    assert_eq!(m.get(q), 0xa5);
    // A rising edge does.
    m.set(clock, 1);
    m.eval();
    assert_eq!(m.get(q), 0x42);
    m.set(clock, 0);
    m.eval();
    assert_eq!(m.get(q), 0x42);
    // Hold when not valid.
    m.set(data, 0x13);
    m.set(valid, 0);
    m.tick(clock);
    assert_eq!(m.get(q), 0x42);
    m.set(valid, 1);
    m.tick(clock);
    assert_eq!(m.get(q), 0x13);
    m.get_wide(wide, &mut w);
    assert_eq!(w, [0, 0, 0x13 << 24]);
    // Inputs read back.
    assert_eq!(m.get(data), 0x13);

    // Out of range values and writes to outputs are testbench bugs.
    let bad = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| m.set(data, 0x100)));
    assert!(bad.is_err(), "0x100 accepted by an 8-bit port");
    let bad = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| m.set(q, 1)));
    assert!(bad.is_err(), "an output accepted a value");
}

#[test]
fn wide_ports_round_trip() {
    let mut m = VerilatedModel::build(WIDE).unwrap();
    let p = |n: &str| m.port(n).unwrap();
    let (clock, a, b, x, y, rx, ry, c) = (
        p("clock"),
        p("a"),
        p("b"),
        p("x"),
        p("y"),
        p("rx"),
        p("ry"),
        p("c"),
    );
    assert_eq!(m.info(a).width, 128);
    assert_eq!(m.info(b).width, 64);

    let mut got = [0u32; 4];
    m.get_wide(rx, &mut got);
    assert_eq!(got, to_words(0x0123456789abcdef_fedcba9876543210));
    assert_eq!(m.get(ry), 0xffffffff_00000001);

    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut prev: Option<(u128, u64)> = None;
    for i in 0..200 {
        let va: u128 = match i {
            0 => u128::MAX,
            1 => 1 << 127,
            _ => rng.gen(),
        };
        let vb: u64 = if i == 0 { u64::MAX } else { rng.gen() };
        m.set_wide(a, &to_words(va));
        m.set(b, vb);
        m.eval();
        // Combinational through the model, exactly.
        m.get_wide(x, &mut got);
        assert_eq!(got, to_words(!va), "x at {i}");
        assert_eq!(m.get(y), vb.wrapping_add(1), "y at {i}");
        assert_eq!(m.get(c), u64::from((va >> 96) as u32 ^ (vb >> 32) as u32));
        // Inputs read back exactly.
        m.get_wide(a, &mut got);
        assert_eq!(got, to_words(va));
        assert_eq!(m.get(b), vb);
        // Registers hold the previous cycle's values until the edge.
        if let Some((pa, pb)) = prev {
            m.get_wide(rx, &mut got);
            assert_eq!(got, to_words(pa));
            assert_eq!(m.get(ry), pb);
        }
        m.tick(clock);
        m.get_wide(rx, &mut got);
        assert_eq!(got, to_words(va), "rx at {i}");
        assert_eq!(m.get(ry), vb, "ry at {i}");
        prev = Some((va, vb));
    }

    // `set` on a wide port zero-extends; `get_wide` on a narrow port works too.
    m.set(a, 0x1234_5678_9abc_def0);
    m.set(b, 0x1234_5678_9abc_def0);
    m.eval();
    m.get_wide(x, &mut got);
    assert_eq!(got, to_words(!0x1234_5678_9abc_def0u128));
    let mut two = [0u32; 2];
    m.get_wide(y, &mut two);
    assert_eq!(two, [0x9abc_def1, 0x1234_5678]);
    // A bit above the port's width is refused.
    let bad = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        m.set_wide(a, &[0, 0, 0, 0, 1])
    }));
    assert!(bad.is_err());
    // `get` on a wide port asks for `get_wide`.
    let bad = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| m.get(x)));
    assert!(bad.is_err());
}

#[test]
fn unknown_port_lists_known_ones() {
    let m = VerilatedModel::build(REG).unwrap();
    let err = format!("{:#}", m.port("s$dat").unwrap_err());
    assert!(err.contains("s$dat"), "{err}");
    for known in ["clock", "s$data", "s$valid", "q", "wide"] {
        assert!(err.contains(known), "{err}");
    }
}

#[test]
fn cache_is_reused_and_parallel_builds_agree() {
    let cache = scratch("cache");
    // Four threads build the same model into an empty cache at once: one wins the rename, all
    // get a working model.
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let cache = cache.clone();
            std::thread::spawn(move || {
                let mut m = VerilatedModel::build_in(COUNTER, &cache).unwrap();
                let (clock, enable, count) = (
                    m.port("clock").unwrap(),
                    m.port("enable").unwrap(),
                    m.port("count").unwrap(),
                );
                m.set(enable, 1);
                for _ in 0..(10 + i) {
                    m.tick(clock);
                }
                assert_eq!(m.get(count), 10 + i);
                m.build_dir().to_path_buf()
            })
        })
        .collect();
    let dirs: Vec<PathBuf> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    assert!(dirs.iter().all(|d| *d == dirs[0]));
    let entries: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        entries
            .iter()
            .filter(|e| !e.starts_with("runtime-"))
            .count(),
        1,
        "one model entry, no temporary directories left: {entries:?}"
    );
    assert_eq!(
        entries.iter().filter(|e| e.starts_with("runtime-")).count(),
        1
    );

    // A second build is a cache hit: fast, and works.
    let start = Instant::now();
    let mut m = VerilatedModel::build_in(COUNTER, &cache).unwrap();
    let elapsed = start.elapsed();
    assert!(m.from_cache());
    assert!(elapsed.as_secs_f64() < 1.0, "cache hit took {elapsed:?}");
    let (clock, enable, count) = (
        m.port("clock").unwrap(),
        m.port("enable").unwrap(),
        m.port("count").unwrap(),
    );
    m.set(enable, 1);
    m.tick(clock);
    assert_eq!(m.get(count), 1);
    // And a fresh instance of it starts from the initial state.
    let n = m.new_instance().unwrap();
    assert_eq!(n.get(count), 0);
    assert_eq!(m.get(count), 1);

    // A different model in the same cache reuses the Verilator run time.
    let other = COUNTER.replace("16'h1;", "16'h2;");
    let mut m2 = VerilatedModel::build_in(&other, &cache).unwrap();
    assert!(!m2.from_cache());
    let (clock, enable, count) = (
        m2.port("clock").unwrap(),
        m2.port("enable").unwrap(),
        m2.port("count").unwrap(),
    );
    m2.set(enable, 1);
    m2.tick(clock);
    assert_eq!(m2.get(count), 2);
    drop((m, n, m2));
    let _ = std::fs::remove_dir_all(&cache);
}

#[test]
fn two_models_in_two_threads() {
    fn assert_send<T: Send>() {}
    assert_send::<VerilatedModel>();
    let a = VerilatedModel::build(COUNTER).unwrap();
    let b = VerilatedModel::build(REG).unwrap();
    let ta = std::thread::spawn(move || {
        let mut m = a;
        let (clock, enable, count) = (
            m.port("clock").unwrap(),
            m.port("enable").unwrap(),
            m.port("count").unwrap(),
        );
        m.set(enable, 1);
        for i in 1..=100_000u64 {
            m.tick(clock);
            assert_eq!(m.get(count), i & 0xffff);
        }
    });
    let tb = std::thread::spawn(move || {
        let mut m = b;
        let (clock, data, valid, q) = (
            m.port("clock").unwrap(),
            m.port("s$data").unwrap(),
            m.port("s$valid").unwrap(),
            m.port("q").unwrap(),
        );
        m.set(valid, 1);
        for i in 0..100_000u64 {
            m.set(data, i & 0xff);
            m.tick(clock);
            assert_eq!(m.get(q), i & 0xff);
        }
    });
    ta.join().unwrap();
    tb.join().unwrap();
}

#[test]
fn vcd_is_written() {
    let dir = scratch("vcd");
    let path = dir.join("sub/counter.vcd");
    {
        let mut m = VerilatedModel::build(COUNTER).unwrap();
        let (clock, enable) = (m.port("clock").unwrap(), m.port("enable").unwrap());
        m.open_trace(&path).unwrap();
        assert_eq!(m.trace_path(), Some(path.as_path()));
        m.set(enable, 1);
        for t in 0..20u64 {
            m.set(clock, 1);
            m.eval();
            m.dump(10 * t);
            m.set(clock, 0);
            m.eval();
            m.dump(10 * t + 5);
        }
    } // drop closes the file
    let vcd = std::fs::read_to_string(&path).unwrap();
    assert!(vcd.contains("$enddefinitions"), "{vcd}");
    assert!(vcd.contains(" count "), "{vcd}");
    assert!(vcd.contains("#195"), "last time stamp missing");
    // count reached 20 = 0b10100.
    assert!(vcd.contains("b0000000000010100"), "{vcd}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn trace_needs_a_traced_build() {
    let opts = BuildOptions {
        trace: false,
        ..BuildOptions::default()
    };
    let mut m = VerilatedModel::build_with(COUNTER, &opts).unwrap();
    let dir = scratch("notrace");
    let err = m.open_trace(&dir.join("x.vcd")).unwrap_err();
    assert!(format!("{err:#}").contains("without tracing"), "{err:#}");
    let _ = std::fs::remove_dir_all(&dir);
    // Otherwise the untraced model works.
    let (clock, enable, count) = (
        m.port("clock").unwrap(),
        m.port("enable").unwrap(),
        m.port("count").unwrap(),
    );
    m.set(enable, 1);
    m.tick(clock);
    m.tick(clock);
    assert_eq!(m.get(count), 2);
}

#[test]
fn verilog_errors_carry_verilator_output() {
    let err =
        VerilatedModel::build("module top(a); input wire a; assign b = ; endmodule\n").unwrap_err();
    let text = format!("{err:#}");
    assert!(text.contains("%Error"), "{text}");
    assert!(text.contains("top.v"), "{text}");
}

#[test]
fn runtime_errors_are_errors_not_aborts() {
    // A combinational loop that never settles: Verilator gives up with a fatal error, which
    // must reach Rust as an error instead of aborting the test process.
    let osc = r#"
module top(clock,go,q);
    input wire clock; input wire go; output wire q;
    wire a;
    assign a = go ? ~a : 1'b0;
    assign q = a;
endmodule
"#;
    let mut m = VerilatedModel::build(osc).unwrap();
    let go = m.port("go").unwrap();
    m.set(go, 1);
    let err = format!("{:#}", m.try_eval().unwrap_err());
    assert!(err.contains("converge"), "{err}");
    // The model is dead from now on.
    assert!(m.try_eval().is_err());
}
