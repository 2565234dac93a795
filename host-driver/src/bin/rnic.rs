//! `rnic`: the project's command-line tool. See `rnic --help`.

fn main() {
    let cli = match rnic_driver::cli::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err((msg, code)) => {
            if code == 0 {
                print!("{msg}");
            } else {
                eprintln!("{msg}");
            }
            std::process::exit(code);
        }
    };
    if let Err(e) = rnic_driver::cli::run(cli) {
        // One line: the error and its causes, joined.
        eprintln!("rnic: {e:#}");
        std::process::exit(1);
    }
}
