//! The Verilator back end: compile the Verilog that rust-hdl generates (top module `top`) into a
//! shared library, load it, and drive its ports from Rust.
//!
//! ```no_run
//! # use rnic_sim::verilator::VerilatedModel;
//! # fn main() -> anyhow::Result<()> {
//! # let verilog = "";
//! let mut m = VerilatedModel::build(verilog)?; // cached under target/verilator/<hash>/
//! let (clock, d, q) = (m.port("clock")?, m.port("s$data")?, m.port("q")?);
//! m.set(d, 0x42);
//! m.tick(clock); // clock 1, eval, clock 0, eval
//! assert_eq!(m.get(q), 0x42);
//! # Ok(()) }
//! ```
//!
//! How it works: `verilator --cc` turns the Verilog into C++; a small generated C++ shim
//! (`rnic_shim.cpp`, see the `build` submodule) gives it a C ABI (create, destroy, eval, the port table,
//! the address of each port's storage, VCD tracing); everything is linked into one `.so` with
//! hidden symbols, loaded with `libloading`. Setting and reading a port is a plain memory access
//! through the address the shim returned (no call per port); only `eval` crosses the FFI.
//!
//! All of the project's `unsafe` code is in this module.

mod build;

pub use build::{default_cache_dir, verilator_version, BuildOptions};

use anyhow::{anyhow, bail, Context, Result};
use libloading::Library;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Direction of a top-level port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PortDir {
    Input,
    Output,
    InOut,
}

/// A top-level port of the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PortInfo {
    /// The Verilog name, e.g. `s$data`.
    pub name: String,
    /// Width in bits.
    pub width: u32,
    pub dir: PortDir,
}

/// Index of a port of a [`VerilatedModel`] (from [`VerilatedModel::port`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PortId(pub usize);

/// Where Verilator keeps a port's value (`CData`/`SData`/`IData`/`QData`/`VlWide<N>`).
#[derive(Clone, Copy, Debug)]
enum Storage {
    U8(*mut u8),
    U16(*mut u16),
    U32(*mut u32),
    U64(*mut u64),
    /// Little-endian 32-bit words.
    Wide(*mut u32, usize),
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    storage: Storage,
    width: u32,
    writable: bool,
}

/// The shim's C ABI (see `build::generate_shim`).
struct Api {
    destroy: unsafe extern "C" fn(*mut c_void),
    eval: unsafe extern "C" fn(*mut c_void) -> c_int,
    error: unsafe extern "C" fn(*mut c_void) -> *const c_char,
    trace_open: unsafe extern "C" fn(*mut c_void, *const c_char) -> c_int,
    trace_dump: unsafe extern "C" fn(*mut c_void, u64) -> c_int,
    trace_flush: unsafe extern "C" fn(*mut c_void),
    trace_close: unsafe extern "C" fn(*mut c_void),
}

type PortInfoFn =
    unsafe extern "C" fn(u32, *mut *const c_char, *mut u32, *mut u32, *mut u32) -> c_int;

/// One instance of a Verilated `top` module.
///
/// Created by [`build`](Self::build) already evaluated once with all inputs 0, so `initial`
/// blocks have run and their values are visible. Dropping it destroys the C++ model (closing
/// any VCD file). `Send` but not `Sync`: one model per thread, any number of models per process.
pub struct VerilatedModel {
    inst: *mut c_void,
    api: Api,
    slots: Vec<Slot>,
    ports: Vec<PortInfo>,
    by_name: HashMap<String, usize>,
    has_trace: bool,
    trace_path: Option<PathBuf>,
    lib_path: PathBuf,
    dir: PathBuf,
    from_cache: bool,
    /// Kept last: the library must outlive `inst` and the function pointers in `api`.
    _lib: Library,
}

// SAFETY: the C++ model has no thread affinity (single-threaded Verilator model, its own
// VerilatedContext, no thread-locals kept between calls); it and the port storage pointers are
// owned exclusively by this value and only used through `&mut self`/`&self` methods, so moving
// the whole value to another thread is sound. It is not `Sync` (raw pointers), on purpose.
unsafe impl Send for VerilatedModel {}

impl VerilatedModel {
    /// Compile `verilog` (or reuse it from the default cache, see [`default_cache_dir`]), load it.
    pub fn build(verilog: &str) -> Result<Self> {
        Self::build_with(verilog, &BuildOptions::default())
    }

    /// As [`build`](Self::build), with the cache in `cache_dir`.
    pub fn build_in(verilog: &str, cache_dir: &Path) -> Result<Self> {
        let opts = BuildOptions {
            cache_dir: Some(cache_dir.to_path_buf()),
            ..BuildOptions::default()
        };
        Self::build_with(verilog, &opts)
    }

    /// As [`build`](Self::build), with explicit options.
    pub fn build_with(verilog: &str, opts: &BuildOptions) -> Result<Self> {
        let built = build::build(verilog, opts)?;
        Self::load(&built.lib, built.dir, !built.compiled)
    }

    /// A fresh instance of the same model (same library; no hashing, no build).
    pub fn new_instance(&self) -> Result<Self> {
        Self::load(&self.lib_path, self.dir.clone(), true)
    }

    fn load(lib_path: &Path, dir: PathBuf, from_cache: bool) -> Result<Self> {
        // SAFETY: loading runs the library's static initialisers: Verilator's run time and our
        // generated shim, neither of which has preconditions or touches Rust state.
        let lib = unsafe { Library::new(lib_path) }
            .with_context(|| format!("loading {}", lib_path.display()))?;
        // SAFETY: `rnic_vl_shim_version` has this signature in every shim version.
        let version = unsafe { lib.get::<unsafe extern "C" fn() -> u32>(b"rnic_vl_shim_version")? };
        // SAFETY: a call without arguments to a function that returns a constant.
        let version = unsafe { version() };
        if version != build::SHIM_VERSION {
            bail!(
                "{}: shim version {version}, expected {}",
                lib_path.display(),
                build::SHIM_VERSION
            );
        }
        // SAFETY: the shim version matches, so these symbols exist with exactly these
        // signatures (generated by `build::generate_shim`). The function pointers are copied
        // out of the `Symbol`s; they stay valid because `lib` is stored next to them and
        // dropped last.
        let (api, create, port_count, port_info, port_ptr, has_trace) = unsafe {
            (
                Api {
                    destroy: *lib.get(b"rnic_vl_destroy")?,
                    eval: *lib.get(b"rnic_vl_eval")?,
                    error: *lib.get(b"rnic_vl_error")?,
                    trace_open: *lib.get(b"rnic_vl_trace_open")?,
                    trace_dump: *lib.get(b"rnic_vl_trace_dump")?,
                    trace_flush: *lib.get(b"rnic_vl_trace_flush")?,
                    trace_close: *lib.get(b"rnic_vl_trace_close")?,
                },
                *lib.get::<unsafe extern "C" fn() -> *mut c_void>(b"rnic_vl_create")?,
                *lib.get::<unsafe extern "C" fn() -> u32>(b"rnic_vl_port_count")?,
                *lib.get::<PortInfoFn>(b"rnic_vl_port_info")?,
                *lib.get::<unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void>(
                    b"rnic_vl_port_ptr",
                )?,
                *lib.get::<unsafe extern "C" fn() -> u32>(b"rnic_vl_has_trace")?,
            )
        };

        // The port table.
        let mut ports = Vec::new();
        let mut sizes = Vec::new();
        // SAFETY: the table functions take no model and only read static data.
        let (count, has_trace) = unsafe { (port_count(), has_trace() != 0) };
        for idx in 0..count {
            let (mut name, mut width, mut dir, mut bytes) = (std::ptr::null(), 0, 0, 0);
            // SAFETY: `idx < count`; the out-pointers are valid locals; on success `name`
            // points at a NUL-terminated string literal inside the library.
            let name = unsafe {
                if port_info(idx, &mut name, &mut width, &mut dir, &mut bytes) != 0
                    || name.is_null()
                {
                    bail!("port table of {} is broken at {idx}", lib_path.display());
                }
                CStr::from_ptr(name).to_string_lossy().into_owned()
            };
            let dir = match dir {
                0 => PortDir::Input,
                1 => PortDir::Output,
                2 => PortDir::InOut,
                d => bail!("port {name}: unknown direction {d}"),
            };
            // Verilator's storage type is fixed by the width; refuse anything else, since the
            // accessors below rely on it.
            let expected = match width {
                1..=8 => 1,
                9..=16 => 2,
                17..=32 => 4,
                33..=64 => 8,
                w => 4 * w.div_ceil(32),
            };
            if bytes != expected {
                bail!("port {name}: {width} bits stored in {bytes} bytes, expected {expected}");
            }
            ports.push(PortInfo { name, width, dir });
            sizes.push(bytes);
        }

        // SAFETY: creates a new model; returns null on failure (checked).
        let inst = unsafe { create() };
        if inst.is_null() {
            bail!(
                "creating the Verilated model from {} failed",
                lib_path.display()
            );
        }
        let mut slots = Vec::with_capacity(ports.len());
        for (idx, p) in ports.iter().enumerate() {
            // SAFETY: `inst` is a live model from `create`, `idx` is a port index of it; the
            // returned address is the port's storage inside the model, valid until destroy.
            let ptr = unsafe { port_ptr(inst, idx as u32) };
            if ptr.is_null() {
                // SAFETY: `inst` came from `create` and is destroyed once, here.
                unsafe { (api.destroy)(inst) };
                bail!("no storage address for port {}", p.name);
            }
            let storage = match p.width {
                1..=8 => Storage::U8(ptr.cast()),
                9..=16 => Storage::U16(ptr.cast()),
                17..=32 => Storage::U32(ptr.cast()),
                33..=64 => Storage::U64(ptr.cast()),
                _ => Storage::Wide(ptr.cast(), sizes[idx] as usize / 4),
            };
            slots.push(Slot {
                storage,
                width: p.width,
                writable: p.dir != PortDir::Output,
            });
        }
        let by_name = ports
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        let mut model = VerilatedModel {
            inst,
            api,
            slots,
            ports,
            by_name,
            has_trace,
            trace_path: None,
            lib_path: lib_path.to_path_buf(),
            dir,
            from_cache,
            _lib: lib,
        };
        // Time 0: run the `initial` blocks and settle with all inputs 0.
        model.try_eval()?;
        Ok(model)
    }

    /// The ports, in the order of Verilator's model header (the Verilog port order).
    pub fn ports(&self) -> &[PortInfo] {
        &self.ports
    }

    /// Look a port up by its Verilog name (`s$data`).
    pub fn port(&self, name: &str) -> Result<PortId> {
        match self.by_name.get(name) {
            Some(&i) => Ok(PortId(i)),
            None => {
                let known: Vec<&str> = self.ports.iter().map(|p| p.name.as_str()).collect();
                Err(anyhow!(
                    "no port `{name}` on the Verilated model; known ports: {}",
                    known.join(", ")
                ))
            }
        }
    }

    /// Description of a port.
    pub fn info(&self, port: PortId) -> &PortInfo {
        &self.ports[port.0]
    }

    fn writable(&self, port: PortId) -> Slot {
        let slot = self.slots[port.0];
        assert!(
            slot.writable,
            "port `{}` is an output and cannot be set",
            self.ports[port.0].name
        );
        slot
    }

    /// Set an input (any width; wider ports get zeros above bit 63). Panics if `value` does
    /// not fit the port's width or the port is an output.
    pub fn set(&mut self, port: PortId, value: u64) {
        let slot = self.writable(port);
        if slot.width < 64 && value >> slot.width != 0 {
            panic!(
                "value {value:#x} does not fit the {}-bit port `{}`",
                slot.width, self.ports[port.0].name
            );
        }
        // SAFETY: the pointer is the port's storage in our live model, of the type checked at
        // load; `&mut self` makes this the only access; the value fits the width.
        unsafe {
            match slot.storage {
                Storage::U8(p) => p.write(value as u8),
                Storage::U16(p) => p.write(value as u16),
                Storage::U32(p) => p.write(value as u32),
                Storage::U64(p) => p.write(value),
                Storage::Wide(p, n) => {
                    let words = std::slice::from_raw_parts_mut(p, n);
                    words.fill(0);
                    words[0] = value as u32;
                    words[1] = (value >> 32) as u32;
                }
            }
        }
    }

    /// Set an input of any width from little-endian 32-bit words. Missing upper words are
    /// zero; panics if a bit at or above the port's width is set.
    pub fn set_wide(&mut self, port: PortId, words: &[u32]) {
        let slot = self.writable(port);
        let n = slot.width.div_ceil(32) as usize;
        let fits = words.iter().enumerate().all(|(i, &w)| {
            let lo = 32 * i as u32;
            lo + 32 <= slot.width || (lo < slot.width && w >> (slot.width - lo) == 0) || w == 0
        });
        if !fits {
            panic!(
                "value {words:x?} does not fit the {}-bit port `{}`",
                slot.width, self.ports[port.0].name
            );
        }
        let word = |i: usize| words.get(i).copied().unwrap_or(0);
        match slot.storage {
            Storage::Wide(p, len) => {
                debug_assert_eq!(len, n);
                // SAFETY: as in `set`; `len` words of storage, checked at load.
                let storage = unsafe { std::slice::from_raw_parts_mut(p, len) };
                for (i, w) in storage.iter_mut().enumerate() {
                    *w = word(i);
                }
            }
            _ => self.set(port, u64::from(word(0)) | u64::from(word(1)) << 32),
        }
    }

    /// Read a port of at most 64 bits (inputs read back what was set). Panics for wider ports
    /// (use [`get_wide`](Self::get_wide)).
    pub fn get(&self, port: PortId) -> u64 {
        let slot = self.slots[port.0];
        // SAFETY: the pointer is the port's storage in our live model, of the type checked at
        // load; the model only changes it inside `eval`, which needs `&mut self`.
        unsafe {
            match slot.storage {
                Storage::U8(p) => u64::from(p.read()),
                Storage::U16(p) => u64::from(p.read()),
                Storage::U32(p) => u64::from(p.read()),
                Storage::U64(p) => p.read(),
                Storage::Wide(..) => panic!(
                    "port `{}` is {} bits wide: use get_wide",
                    self.ports[port.0].name, slot.width
                ),
            }
        }
    }

    /// Read a port of any width into little-endian 32-bit words; `out` words beyond the port
    /// are zeroed. Panics if `out` is shorter than the port.
    pub fn get_wide(&self, port: PortId, out: &mut [u32]) {
        let slot = self.slots[port.0];
        let n = slot.width.div_ceil(32) as usize;
        assert!(
            out.len() >= n,
            "port `{}` is {} bits: needs {n} words, got {}",
            self.ports[port.0].name,
            slot.width,
            out.len()
        );
        out.fill(0);
        match slot.storage {
            Storage::Wide(p, len) => {
                // SAFETY: as in `get`; `len` words of storage, checked at load.
                let storage = unsafe { std::slice::from_raw_parts(p, len) };
                out[..len].copy_from_slice(storage);
            }
            _ => {
                let v = self.get(port);
                out[0] = v as u32;
                if n > 1 {
                    out[1] = (v >> 32) as u32;
                }
            }
        }
    }

    /// Evaluate the model (`Vtop::eval`). Panics on a Verilator run-time error (e.g. a
    /// combinational loop that does not converge); see [`try_eval`](Self::try_eval).
    #[inline]
    pub fn eval(&mut self) {
        if let Err(e) = self.try_eval() {
            panic!("{e:#}");
        }
    }

    /// Evaluate the model; a Verilator run-time error (fatal error, `$stop`) is returned, and
    /// the model is dead afterwards (every later evaluation fails).
    #[inline]
    pub fn try_eval(&mut self) -> Result<()> {
        // SAFETY: `inst` is our live model; the shim catches every C++ exception.
        let rc = unsafe { (self.api.eval)(self.inst) };
        if rc == 0 {
            Ok(())
        } else {
            Err(anyhow!("Verilator run-time error: {}", self.last_error()))
        }
    }

    fn last_error(&self) -> String {
        // SAFETY: `inst` is our live model; the string lives in it until the next call.
        unsafe { CStr::from_ptr((self.api.error)(self.inst)) }
            .to_string_lossy()
            .into_owned()
    }

    /// One clock cycle on `clock`: set 1, eval, set 0, eval.
    #[inline]
    pub fn tick(&mut self, clock: PortId) {
        self.set(clock, 1);
        self.eval();
        self.set(clock, 0);
        self.eval();
    }

    /// Start writing a VCD waveform to `path` (parent directories are created; an open trace
    /// is closed first). Values are written by [`dump`](Self::dump).
    pub fn open_trace(&mut self, path: &Path) -> Result<()> {
        if !self.has_trace {
            bail!("the model was built without tracing (BuildOptions::trace = false)");
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("creating {}", parent.display()))?;
        }
        use std::os::unix::ffi::OsStrExt;
        let c_path = CString::new(path.as_os_str().as_bytes())
            .with_context(|| format!("bad VCD path {}", path.display()))?;
        // SAFETY: `inst` is our live model; `c_path` is NUL-terminated and outlives the call.
        let rc = unsafe { (self.api.trace_open)(self.inst, c_path.as_ptr()) };
        if rc != 0 {
            self.trace_path = None;
            bail!("opening VCD {}: {}", path.display(), self.last_error());
        }
        self.trace_path = Some(path.to_path_buf());
        Ok(())
    }

    /// Write every traced signal's current value at `time` (no-op without an open trace).
    pub fn dump(&mut self, time: u64) {
        if self.trace_path.is_none() {
            return;
        }
        // SAFETY: `inst` is our live model.
        if unsafe { (self.api.trace_dump)(self.inst, time) } != 0 {
            panic!("VCD dump failed: {}", self.last_error());
        }
    }

    /// Flush the VCD file to disk.
    pub fn flush_trace(&mut self) {
        // SAFETY: `inst` is our live model.
        unsafe { (self.api.trace_flush)(self.inst) };
    }

    /// Close the VCD file (also done on drop).
    pub fn close_trace(&mut self) {
        // SAFETY: `inst` is our live model.
        unsafe { (self.api.trace_close)(self.inst) };
        self.trace_path = None;
    }

    /// The VCD file being written, if any.
    pub fn trace_path(&self) -> Option<&Path> {
        self.trace_path.as_deref()
    }

    /// The cache entry of this model (`top.v`, `build.log`, the library).
    pub fn build_dir(&self) -> &Path {
        &self.dir
    }

    /// True if the model was found in the cache instead of compiled by this call.
    pub fn from_cache(&self) -> bool {
        self.from_cache
    }

    /// Clock `clock` for `cycles` cycles (inputs as they are) and return cycles per second:
    /// the raw speed of the model with one `tick` per cycle, for benchmarks.
    pub fn measure_cycles_per_second(&mut self, clock: PortId, cycles: u64) -> f64 {
        let start = Instant::now();
        for _ in 0..cycles {
            self.tick(clock);
        }
        cycles as f64 / start.elapsed().as_secs_f64().max(1e-9)
    }
}

impl Drop for VerilatedModel {
    fn drop(&mut self) {
        // SAFETY: `inst` came from `create` and is destroyed exactly once, here; the library
        // (`_lib`) is dropped after this body.
        unsafe { (self.api.destroy)(self.inst) };
    }
}

impl std::fmt::Debug for VerilatedModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerilatedModel")
            .field("library", &self.lib_path)
            .field("ports", &self.ports)
            .field("trace", &self.trace_path)
            .finish()
    }
}
