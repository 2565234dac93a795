//! Helpers shared by the flow's integration tests.

use std::path::PathBuf;

/// Fails (does not skip) when a synthesis tool is missing.
pub fn require_tools() {
    if let Err(e) = rnic_bsp::check_tools() {
        panic!("the synthesis tools are required for these tests: {e:#}");
    }
}

/// An empty scratch directory `<target tmp>/<suite>/<name>`.
pub fn work_dir(suite: &str, name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(suite)
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
