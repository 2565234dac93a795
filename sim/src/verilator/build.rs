//! Compiling Verilog into a loadable shared library: Verilator, the generated C++ shim, the cache.
//!
//! Layout of a cache directory:
//! - `<cache>/<key>/` — one finished model: `librnic_model.so`, `top.v`, `build.log`;
//! - `<cache>/runtime-<key>/` — Verilator's run-time objects (`verilated.o`, ...), compiled once
//!   per Verilator version and flags and linked into every model (saves ~10 s per model);
//! - `<cache>/.tmp-*` — builds in progress. Everything is built in a private temporary directory
//!   and published with one `rename`, so parallel builds of the same key (threads or processes)
//!   never see a half-written model: the first rename wins, the others use the winner's result.

use super::PortDir;
use anyhow::{anyhow, bail, Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

/// Version of the generated C++ shim and of its C ABI; part of every cache key.
pub(crate) const SHIM_VERSION: u32 = 1;
/// File name of the model library inside a cache entry.
pub(crate) const LIB_NAME: &str = "librnic_model.so";
/// Flags for every C++ file (model, shim and Verilator run time).
const CFLAGS: &str = "-fPIC -fvisibility=hidden -DVL_USER_FATAL -DVL_USER_STOP -DVL_USER_FINISH";

/// How to build a model. [`Default`] is what [`super::VerilatedModel::build`] uses.
#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Compile VCD tracing in (`verilator --trace`), needed by `open_trace`. Default: on.
    pub trace: bool,
    /// Cache directory; `None`: `$RNIC_VERILATOR_CACHE`, else `$CARGO_TARGET_DIR/verilator`,
    /// else the workspace's `target/verilator`.
    pub cache_dir: Option<PathBuf>,
    /// Parallel compiler jobs (`make -j`); `None`: the number of CPUs.
    pub jobs: Option<usize>,
    /// Optimisation flags for the model's C++ (make's `OPT_FAST`/`OPT_SLOW`/`OPT_GLOBAL`).
    pub opt_fast: String,
    pub opt_slow: String,
    pub opt_global: String,
    /// Extra arguments for `verilator` (e.g. `-Wno-...`); part of the cache key.
    pub verilator_args: Vec<String>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            trace: true,
            cache_dir: None,
            jobs: None,
            opt_fast: "-O2".into(),
            opt_slow: "-O1".into(),
            opt_global: "-O2".into(),
            verilator_args: Vec::new(),
        }
    }
}

/// The cache directory used when none is given.
pub fn default_cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("RNIC_VERILATOR_CACHE") {
        return PathBuf::from(dir);
    }
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"),
    };
    target.join("verilator")
}

/// A finished cache entry.
pub(crate) struct Built {
    pub lib: PathBuf,
    pub dir: PathBuf,
    /// False when the entry was already in the cache.
    pub compiled: bool,
}

/// Build `verilog` (top module `top`) into a cached shared library, or find it in the cache.
pub(crate) fn build(verilog: &str, opts: &BuildOptions) -> Result<Built> {
    let cache = opts.cache_dir.clone().unwrap_or_else(default_cache_dir);
    if cache.to_string_lossy().contains(char::is_whitespace) {
        // The paths end up in a make file.
        bail!(
            "the Verilator cache path must not contain spaces: {}",
            cache.display()
        );
    }
    let tools = tool_versions()?;
    let key = hash_hex(&[
        verilog.as_bytes(),
        &SHIM_VERSION.to_le_bytes(),
        tools.as_bytes(),
        option_text(opts).as_bytes(),
    ]);
    let dir = cache.join(&key);
    let lib = dir.join(LIB_NAME);
    if lib.is_file() {
        return Ok(Built {
            lib,
            dir,
            compiled: false,
        });
    }
    std::fs::create_dir_all(&cache)
        .with_context(|| format!("creating Verilator cache directory {}", cache.display()))?;
    let tmp = temp_dir(&cache, &key)?;
    let result = build_in_temp(verilog, opts, &cache, &tmp, &tools);
    let out = match result {
        Ok(out) => out,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    publish(&out, &dir)?;
    let _ = std::fs::remove_dir_all(&tmp);
    if !lib.is_file() {
        bail!("Verilator build finished but {} is missing", lib.display());
    }
    Ok(Built {
        lib,
        dir,
        compiled: true,
    })
}

/// Atomically move a finished directory to its place in the cache; losing a race is fine.
fn publish(from: &Path, to: &Path) -> Result<()> {
    match std::fs::rename(from, to) {
        Ok(()) => Ok(()),
        // Somebody else published the same key first (ENOTEMPTY / EEXIST): use theirs.
        Err(_) if to.join(LIB_NAME).is_file() || to.join("runtime.list").is_file() => Ok(()),
        Err(e) => Err(e).with_context(|| format!("moving {} to {}", from.display(), to.display())),
    }
}

fn temp_dir(cache: &Path, key: &str) -> Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = format!(
        ".tmp-{}-{}-{}-{}",
        &key[..12],
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed),
        nanos
    );
    let dir = cache.join(name);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

fn option_text(opts: &BuildOptions) -> String {
    format!(
        "trace={} fast={} slow={} global={} cflags={} args={:?}",
        opts.trace, opts.opt_fast, opts.opt_slow, opts.opt_global, CFLAGS, opts.verilator_args
    )
}

/// `verilator --version` and the C++ compiler's version, once per process.
fn tool_versions() -> Result<String> {
    static VERSIONS: OnceLock<std::result::Result<String, String>> = OnceLock::new();
    VERSIONS
        .get_or_init(|| {
            let vl = run_capture(Command::new("verilator").arg("--version"))
                .map_err(|e| format!("{e:#}"))?;
            let cxx = run_capture(Command::new("g++").arg("--version")).unwrap_or_default();
            let cxx = cxx.lines().next().unwrap_or("").to_string();
            Ok(format!("{}\n{}", vl.trim(), cxx))
        })
        .clone()
        .map_err(|e| anyhow!("Verilator is not usable: {e}"))
}

/// The installed Verilator's version line, e.g. `Verilator 5.006 2023-01-22 rev (Debian 5.006-3)`.
pub fn verilator_version() -> Result<String> {
    Ok(tool_versions()?.lines().next().unwrap_or("").to_string())
}

/// Run a command; Ok(stdout + stderr) on success, else an error carrying the output's tail.
fn run_capture(cmd: &mut Command) -> Result<String> {
    let out = cmd
        .output()
        .with_context(|| format!("running {:?}", cmd.get_program()))?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    if !out.status.success() {
        bail!(
            "{:?} failed ({}):\n{}",
            cmd.get_program(),
            out.status,
            tail(&text, 80)
        );
    }
    Ok(text)
}

/// The last `lines` lines of `text`.
fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    let start = all.len().saturating_sub(lines);
    let mut s = String::new();
    if start > 0 {
        let _ = writeln!(s, "[... {start} lines cut ...]");
    }
    for l in &all[start..] {
        s.push_str(l);
        s.push('\n');
    }
    s
}

/// Builds the model in `tmp`, returns the directory to publish (`tmp/out`).
fn build_in_temp(
    verilog: &str,
    opts: &BuildOptions,
    cache: &Path,
    tmp: &Path,
    tools: &str,
) -> Result<PathBuf> {
    let out = tmp.join("out");
    let obj = tmp.join("obj");
    std::fs::create_dir_all(&out)?;
    let src = out.join("top.v");
    std::fs::write(&src, verilog).context("writing top.v")?;
    let jobs = opts
        .jobs
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(2)
        .max(1);
    let mut log = String::new();

    // 1. Verilog -> C++.
    let mut vl = Command::new("verilator");
    vl.args([
        "--cc",
        "-O3",
        "--x-assign",
        "fast",
        "--x-initial",
        "fast",
        "--noassert",
    ])
    .args(["-Wno-fatal", "-Wno-lint", "-Wno-style"])
    .args(["--default-language", "1364-2005"])
    .args(["--top-module", "top", "--prefix", "Vtop"])
    .arg("-Mdir")
    .arg(&obj)
    .args(["-CFLAGS", CFLAGS]);
    if opts.trace {
        vl.arg("--trace");
    }
    vl.args(&opts.verilator_args).arg(&src);
    let _ = writeln!(log, "$ {vl:?}");
    log.push_str(&run_capture(&mut vl).context("Verilator rejected the Verilog")?);

    // 2. The port list, from Verilator's own model header (it knows the C++ names).
    let header = std::fs::read_to_string(obj.join("Vtop.h")).context("reading Vtop.h")?;
    let ports = parse_model_header(&header)?;
    std::fs::write(obj.join("rnic_shim.cpp"), generate_shim(&ports))?;
    std::fs::write(obj.join("rnic.mk"), RNIC_MK)?;

    // 3. Verilator's run-time objects: from the cache, or built here and then cached.
    let make = |targets: &[&str], extra: &[String]| -> Result<String> {
        let mut cmd = Command::new("make");
        cmd.current_dir(&obj)
            .args(["-f", "rnic.mk", &format!("-j{jobs}")])
            .arg(format!("OPT_FAST={}", opts.opt_fast))
            .arg(format!("OPT_SLOW={}", opts.opt_slow))
            .arg(format!("OPT_GLOBAL={}", opts.opt_global))
            .args(extra)
            .args(targets);
        run_capture(&mut cmd).with_context(|| format!("building the model in {}", obj.display()))
    };
    let globals: Vec<String> = make(&["-s", "rnic-print-globals"], &[])?
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let runtime_key = hash_hex(&[
        &SHIM_VERSION.to_le_bytes(),
        tools.as_bytes(),
        option_text(opts).as_bytes(),
        globals.join(" ").as_bytes(),
    ]);
    let runtime = cache.join(format!("runtime-{runtime_key}"));
    if !runtime.join("runtime.list").is_file() {
        // One run-time build at a time in this process: parallel first builds (test threads)
        // wait for it instead of all compiling the same files.
        static RUNTIME_LOCK: Mutex<()> = Mutex::new(());
        let _guard = RUNTIME_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        if !runtime.join("runtime.list").is_file() {
            let targets: Vec<&str> = globals.iter().map(String::as_str).collect();
            log.push_str(&make(&targets, &[])?);
            let rt_tmp = tmp.join("runtime");
            std::fs::create_dir_all(&rt_tmp)?;
            for g in &globals {
                std::fs::copy(obj.join(g), rt_tmp.join(g))?;
            }
            std::fs::write(rt_tmp.join("runtime.list"), globals.join("\n"))?;
            publish(&rt_tmp, &runtime)?;
        }
    }
    let objs: Vec<String> = globals
        .iter()
        .map(|g| runtime.join(g).display().to_string())
        .collect();

    // 4. C++ -> shared library.
    log.push_str(&make(
        &[LIB_NAME],
        &[format!("RNIC_RUNTIME_OBJS={}", objs.join(" "))],
    )?);
    std::fs::rename(obj.join(LIB_NAME), out.join(LIB_NAME))?;
    std::fs::write(out.join("build.log"), &log)?;
    Ok(out)
}

/// Make file around Verilator's: links the shim, the model and the run time into one `.so`.
const RNIC_MK: &str = r#"include Vtop.mk
rnic-print-globals:
	@echo $(VK_GLOBAL_OBJS)
librnic_model.so: rnic_shim.o Vtop__ALL.a $(RNIC_RUNTIME_OBJS)
	$(CXX) -shared -o $@ rnic_shim.o Vtop__ALL.a $(RNIC_RUNTIME_OBJS) -Wl,--no-undefined $(LDFLAGS) $(LDLIBS) -pthread
"#;

/// One top-level port as Verilator declared it in `Vtop.h`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HeaderPort {
    /// The C++ member name (`s__024data`).
    pub cname: String,
    /// The Verilog name (`s$data`).
    pub name: String,
    pub width: u32,
    pub dir: PortDir,
}

/// Ports from lines like `VL_IN8(&s__024data,7,0);` / `VL_OUTW(&wide,95,0,3);`.
pub(crate) fn parse_model_header(header: &str) -> Result<Vec<HeaderPort>> {
    let mut ports = Vec::new();
    for line in header.lines() {
        let line = line.trim();
        let dir = if line.starts_with("VL_INOUT") {
            PortDir::InOut
        } else if line.starts_with("VL_IN") {
            PortDir::Input
        } else if line.starts_with("VL_OUT") {
            PortDir::Output
        } else {
            continue;
        };
        let (Some(open), Some(close)) = (line.find('('), line.rfind(')')) else {
            continue;
        };
        let args: Vec<&str> = line[open + 1..close].split(',').map(str::trim).collect();
        let Some(cname) = args.first().and_then(|a| a.strip_prefix('&')) else {
            continue;
        };
        let num = |i: usize| -> Result<u32> {
            args.get(i)
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| anyhow!("unexpected port declaration in Vtop.h: {line}"))
        };
        let (msb, lsb) = (num(1)?, num(2)?);
        if msb < lsb {
            bail!("unexpected port range in Vtop.h: {line}");
        }
        ports.push(HeaderPort {
            cname: cname.to_string(),
            name: demangle(cname),
            width: msb - lsb + 1,
            dir,
        });
    }
    Ok(ports)
}

/// Undo Verilator's C++ name encoding: `__0HH` is the character 0xHH (`$` -> `__024`,
/// `__` -> `___05F`), and C++ keywords get a `__SYM__` prefix.
pub(crate) fn demangle(cname: &str) -> String {
    let s = cname.strip_prefix("__SYM__").unwrap_or(cname);
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"__0") && i + 5 <= b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 3..i + 5], 16) {
                out.push(v);
                i += 5;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn c_string_literal(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.bytes() {
        match c {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            _ => {
                let _ = write!(out, "\\{c:03o}");
            }
        }
    }
    out.push('"');
    out
}

/// The C++ shim: a C ABI over one `Vtop` model (see `super::ffi` for the Rust side).
pub(crate) fn generate_shim(ports: &[HeaderPort]) -> String {
    let mut table = String::new();
    let mut cases = String::new();
    for (i, p) in ports.iter().enumerate() {
        let dir = match p.dir {
            PortDir::Input => 0,
            PortDir::Output => 1,
            PortDir::InOut => 2,
        };
        let _ = writeln!(
            table,
            "    {{{}, {}u, {}u, (uint32_t)sizeof(Vtop::{})}},",
            c_string_literal(&p.name),
            p.width,
            dir,
            p.cname
        );
        let addr = if p.width > 64 {
            format!("m->{}.data()", p.cname)
        } else {
            format!("&m->{}", p.cname)
        };
        let _ = writeln!(cases, "    case {i}: return (void*){addr};");
    }
    format!(
        r#"// Generated by rnic-sim (shim version {SHIM_VERSION}). Do not edit.
#include "Vtop.h"
#include "verilated.h"
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

#define RNIC_EXPORT extern "C" __attribute__((visibility("default")))

namespace {{
struct RnicFatal {{ std::string msg; }};
struct PortDesc {{ const char* name; uint32_t width; uint32_t dir; uint32_t bytes; }};
const PortDesc PORTS[] = {{
{table}    {{nullptr, 0u, 0u, 0u}},
}};
const uint32_t NPORTS = {nports}u;

struct Inst {{
    VerilatedContext ctx;
    Vtop* model = nullptr;
#if VM_TRACE
    VerilatedVcdC* tfp = nullptr;
#endif
    std::string error;
    bool dead = false;
    void close_trace() {{
#if VM_TRACE
        if (tfp) {{ tfp->close(); delete tfp; tfp = nullptr; }}
#endif
    }}
    ~Inst() {{
        try {{ close_trace(); }} catch (...) {{}}
        delete model;
    }}
}};

std::string where(const char* filename, int linenum, const char* hier) {{
    std::string s;
    if (filename && filename[0]) {{ s += filename; s += ":"; s += std::to_string(linenum); }}
    if (hier && hier[0]) {{ s += s.empty() ? "" : " "; s += "("; s += hier; s += ")"; }}
    return s;
}}
}}  // namespace

// Verilator's fatal errors (e.g. "did not converge") and $stop become C++ exceptions, caught at
// the C ABI and reported to Rust, instead of aborting the whole test process.
void vl_fatal(const char* filename, int linenum, const char* hier, const char* msg) {{
    std::string m = msg ? msg : "fatal error";
    std::string w = where(filename, linenum, hier);
    if (!w.empty()) m += " [" + w + "]";
    throw RnicFatal{{m}};
}}
void vl_stop(const char* filename, int linenum, const char* hier) {{
    throw RnicFatal{{"Verilog $stop [" + where(filename, linenum, hier) + "]"}};
}}
void vl_finish(const char*, int, const char*) {{}}

// Runs `body`; returns 0, or 1 with the message in `inst->error` (and the model marked dead
// if `fatal`: Verilator's state after an exception in eval is not trustworthy).
#define RNIC_GUARD(inst, fatal, body)                                       \
    try {{ body; return 0; }}                                                \
    catch (const RnicFatal& e) {{ (inst)->error = e.msg; }}                   \
    catch (const std::exception& e) {{ (inst)->error = e.what(); }}          \
    catch (...) {{ (inst)->error = "unknown C++ exception"; }}               \
    if (fatal) (inst)->dead = true;                                         \
    return 1;

RNIC_EXPORT uint32_t rnic_vl_shim_version() {{ return {SHIM_VERSION}u; }}
RNIC_EXPORT uint32_t rnic_vl_has_trace() {{ return VM_TRACE ? 1u : 0u; }}
RNIC_EXPORT uint32_t rnic_vl_port_count() {{ return NPORTS; }}
RNIC_EXPORT int rnic_vl_port_info(uint32_t idx, const char** name, uint32_t* width, uint32_t* dir,
                                  uint32_t* bytes) {{
    if (idx >= NPORTS) return 1;
    *name = PORTS[idx].name; *width = PORTS[idx].width; *dir = PORTS[idx].dir;
    *bytes = PORTS[idx].bytes;
    return 0;
}}

RNIC_EXPORT void* rnic_vl_create() {{
    Inst* inst = nullptr;
    try {{
        inst = new Inst();
#if VM_TRACE
        inst->ctx.traceEverOn(true);
#endif
        inst->model = new Vtop(&inst->ctx, "top");
        return inst;
    }} catch (...) {{
        delete inst;
        return nullptr;
    }}
}}

RNIC_EXPORT void rnic_vl_destroy(void* p) {{
    Inst* inst = static_cast<Inst*>(p);
    if (!inst) return;
    if (!inst->dead) {{ try {{ inst->model->final(); }} catch (...) {{}} }}
    delete inst;
}}

RNIC_EXPORT int rnic_vl_eval(void* p) {{
    Inst* inst = static_cast<Inst*>(p);
    if (inst->dead) return 1;
    RNIC_GUARD(inst, true, inst->model->eval())
}}

RNIC_EXPORT const char* rnic_vl_error(void* p) {{ return static_cast<Inst*>(p)->error.c_str(); }}

RNIC_EXPORT void* rnic_vl_port_ptr(void* p, uint32_t idx) {{
    Vtop* m = static_cast<Inst*>(p)->model;
    switch (idx) {{
{cases}    default: return nullptr;
    }}
}}

RNIC_EXPORT int rnic_vl_trace_open(void* p, const char* path) {{
    Inst* inst = static_cast<Inst*>(p);
#if VM_TRACE
    RNIC_GUARD(inst, false, {{
        inst->close_trace();
        VerilatedVcdC* t = new VerilatedVcdC();
        inst->model->trace(t, 99);
        t->open(path);
        if (!t->isOpen()) {{
            delete t;
            inst->error = std::string("cannot open VCD file ") + path;
            return 1;
        }}
        inst->tfp = t;
    }})
#else
    (void)path;
    inst->error = "model built without tracing (BuildOptions::trace = false)";
    return 1;
#endif
}}

RNIC_EXPORT int rnic_vl_trace_dump(void* p, uint64_t time) {{
    Inst* inst = static_cast<Inst*>(p);
#if VM_TRACE
    if (!inst->tfp) return 0;
    RNIC_GUARD(inst, false, inst->tfp->dump(time))
#else
    (void)inst; (void)time;
    return 0;
#endif
}}

RNIC_EXPORT void rnic_vl_trace_flush(void* p) {{
#if VM_TRACE
    Inst* inst = static_cast<Inst*>(p);
    if (inst->tfp) {{ try {{ inst->tfp->flush(); }} catch (...) {{}} }}
#else
    (void)p;
#endif
}}

RNIC_EXPORT void rnic_vl_trace_close(void* p) {{
    try {{ static_cast<Inst*>(p)->close_trace(); }} catch (...) {{}}
}}
"#,
        nports = ports.len()
    )
}

/// FNV-1a, 128 bits, over length-prefixed parts; hex.
fn hash_hex(parts: &[&[u8]]) -> String {
    const OFFSET: u128 = 0x6c62_272e_07bb_0142_62b8_2175_6295_c58d;
    const PRIME: u128 = 0x0000_0000_0100_0000_0000_0000_0000_013b;
    let mut h = OFFSET;
    for part in parts {
        for &b in (part.len() as u64).to_le_bytes().iter().chain(part.iter()) {
            h ^= u128::from(b);
            h = h.wrapping_mul(PRIME);
        }
    }
    format!("{h:032x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangles_verilator_names() {
        assert_eq!(demangle("s__024data"), "s$data");
        assert_eq!(demangle("a___05Fb"), "a__b");
        assert_eq!(demangle("__SYM__new"), "new");
        assert_eq!(demangle("_x"), "_x");
        assert_eq!(demangle("q__024"), "q$");
        assert_eq!(demangle("clock"), "clock");
    }

    #[test]
    fn parses_header_ports() {
        let h = "    VL_IN8(&clock,0,0);\n    VL_IN16(&s__024data,15,0);\n    VL_OUTW(&wide,95,0,3);\n    VL_INOUT64(&io,40,0);\n    VL_UNCOPYABLE(Vtop);\n";
        let p = parse_model_header(h).unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(
            (p[1].name.as_str(), p[1].width, p[1].dir),
            ("s$data", 16, PortDir::Input)
        );
        assert_eq!(
            (p[2].name.as_str(), p[2].width, p[2].dir),
            ("wide", 96, PortDir::Output)
        );
        assert_eq!(
            (p[3].name.as_str(), p[3].width, p[3].dir),
            ("io", 41, PortDir::InOut)
        );
    }

    #[test]
    fn hash_separates_parts() {
        assert_ne!(hash_hex(&[b"ab", b"c"]), hash_hex(&[b"a", b"bc"]));
        assert_eq!(hash_hex(&[b"x"]).len(), 32);
    }
}
