//! Port list of a Verilog module, read from its text.
//!
//! Written for the Verilog that rust-hdl's `generate_verilog` emits: a non-ANSI header
//! `module top(clock,s$data,q);` followed by one declaration per port
//! (`input wire  [7:0] s$data;`, `output reg  q;`, `output wire ...`, `inout wire ...`,
//! optionally `signed`). ANSI headers (`module top(input wire [7:0] a, output reg q);`) are
//! accepted too, so hand-written test modules work. Identifiers may contain `$` (legal in
//! Verilog after the first character) or be escaped (`\a.b `). Ranges must be integer
//! literals, which is all rust-hdl produces.

use std::fmt;

use anyhow::{anyhow, bail, Context, Result};
use serde::Serialize;

/// Direction of a module port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Input,
    Output,
    InOut,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Input => "input",
            Direction::Output => "output",
            Direction::InOut => "inout",
        })
    }
}

/// One port of a module: name (as written, without the `\` of an escaped identifier),
/// direction and width in bits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Port {
    pub name: String,
    pub direction: Direction,
    pub width: usize,
}

/// The ports of `module top` in `verilog`, in header order.
pub fn parse_ports(verilog: &str) -> Result<Vec<Port>> {
    parse_module_ports(verilog, "top")
}

/// The ports of module `module` in `verilog`, in header order.
pub fn parse_module_ports(verilog: &str, module: &str) -> Result<Vec<Port>> {
    let tokens = tokenize(verilog)?;
    let start = tokens
        .windows(2)
        .position(|w| w[0].is_word("module") && w[1].ident() == Some(module))
        .ok_or_else(|| anyhow!("no `module {module}` found in the Verilog"))?;
    let mut pos = start + 2;
    // Skip a parameter list `#( ... )`.
    if tokens.get(pos).is_some_and(|t| t.is_punct('#')) {
        pos = skip_balanced(&tokens, pos + 1)
            .with_context(|| format!("unterminated parameter list of module `{module}`"))?;
    }
    let mut ports: Vec<Port> = Vec::new();
    let mut header_names: Vec<String> = Vec::new();
    let mut ansi = false;
    if tokens.get(pos).is_some_and(|t| t.is_punct('(')) {
        let close = skip_balanced(&tokens, pos)
            .with_context(|| format!("unterminated port list of module `{module}`"))?;
        let header = &tokens[pos + 1..close - 1];
        ansi = header.iter().any(|t| t.direction().is_some());
        if ansi {
            parse_ansi_header(header, &mut ports)
                .with_context(|| format!("in the header of module `{module}`"))?;
        } else {
            for item in header.split(|t| t.is_punct(',')) {
                match item {
                    [] if header.is_empty() => {}
                    [t] if t.ident().is_some() => header_names.push(t.text.clone()),
                    _ => bail!(
                        "unsupported port list entry `{}` in module `{module}`",
                        join(item)
                    ),
                }
            }
        }
        pos = close;
    }
    if !tokens.get(pos).is_some_and(|t| t.is_punct(';')) {
        bail!("expected `;` after the port list of module `{module}`");
    }
    pos += 1;
    // Body statements up to `endmodule`.
    let end = tokens[pos..]
        .iter()
        .position(|t| t.is_word("endmodule"))
        .map(|i| pos + i)
        .ok_or_else(|| anyhow!("module `{module}` has no `endmodule`"))?;
    let body = &tokens[pos..end];
    if !ansi {
        let mut declared: Vec<Port> = Vec::new();
        for stmt in body.split(|t| t.is_punct(';')) {
            if let Some(direction) = stmt.first().and_then(Token::direction) {
                parse_declaration(direction, &stmt[1..], &mut declared).with_context(|| {
                    format!(
                        "in declaration `{}` of module `{module}`",
                        join(stmt).trim_end()
                    )
                })?;
            }
        }
        for name in &header_names {
            let port = declared.iter().find(|p| &p.name == name).ok_or_else(|| {
                anyhow!("port `{name}` of module `{module}` has no input/output declaration")
            })?;
            ports.push(port.clone());
        }
        if let Some(extra) = declared.iter().find(|p| !header_names.contains(&p.name)) {
            bail!(
                "`{}` is declared {} in module `{module}` but is not in its port list",
                extra.name,
                extra.direction
            );
        }
    }
    for (i, p) in ports.iter().enumerate() {
        if ports[..i].iter().any(|q| q.name == p.name) {
            bail!("port `{}` of module `{module}` is declared twice", p.name);
        }
    }
    Ok(ports)
}

/// Parses the part of a declaration after its direction keyword:
/// `[wire|reg|logic] [signed] [[msb:lsb]] name {, name}`.
fn parse_declaration(direction: Direction, rest: &[Token], out: &mut Vec<Port>) -> Result<()> {
    let (width, names) = parse_type_and_range(rest)?;
    if names.is_empty() {
        bail!("no port name");
    }
    for item in names.split(|t| t.is_punct(',')) {
        match item {
            [t] if t.ident().is_some() => out.push(Port {
                name: t.text.clone(),
                direction,
                width,
            }),
            _ => bail!("unsupported port name `{}`", join(item)),
        }
    }
    Ok(())
}

/// ANSI header: items separated by commas; an item starting with a direction sets the
/// direction, type and range for it and the following bare names.
fn parse_ansi_header(header: &[Token], out: &mut Vec<Port>) -> Result<()> {
    let mut current: Option<(Direction, usize)> = None;
    for item in header.split(|t| t.is_punct(',')) {
        if let Some(direction) = item.first().and_then(Token::direction) {
            let (width, names) = parse_type_and_range(&item[1..])?;
            match names {
                [t] if t.ident().is_some() => {
                    out.push(Port {
                        name: t.text.clone(),
                        direction,
                        width,
                    });
                    current = Some((direction, width));
                }
                _ => bail!("unsupported port declaration `{}`", join(item)),
            }
        } else if let [t] = item {
            let (direction, width) = match (t.ident(), current) {
                (Some(_), Some(c)) => c,
                _ => bail!("port `{}` has no direction", t.text),
            };
            out.push(Port {
                name: t.text.clone(),
                direction,
                width,
            });
        } else {
            bail!("unsupported port declaration `{}`", join(item));
        }
    }
    Ok(())
}

/// Skips net type and `signed`, reads an optional `[msb:lsb]`; returns the width and the
/// remaining tokens (the names).
fn parse_type_and_range(mut rest: &[Token]) -> Result<(usize, &[Token])> {
    while let Some(t) = rest.first() {
        if ["wire", "reg", "logic", "signed", "unsigned", "tri"]
            .iter()
            .any(|k| t.is_word(k))
        {
            rest = &rest[1..];
        } else {
            break;
        }
    }
    let mut width = 1;
    if rest.first().is_some_and(|t| t.is_punct('[')) {
        match rest {
            [_, msb, colon, lsb, close, tail @ ..]
                if colon.is_punct(':') && close.is_punct(']') =>
            {
                let msb = msb.number().ok_or_else(|| {
                    anyhow!("range bound `{}` is not an integer literal", msb.text)
                })?;
                let lsb = lsb.number().ok_or_else(|| {
                    anyhow!("range bound `{}` is not an integer literal", lsb.text)
                })?;
                width = msb.abs_diff(lsb) + 1;
                rest = tail;
            }
            _ => bail!("unsupported range (expected `[msb:lsb]` with integer literals)"),
        }
    }
    Ok((width, rest))
}

/// Index just past the bracket that closes the one at `open`.
fn skip_balanced(tokens: &[Token], open: usize) -> Result<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        if t.is_punct('(') {
            depth += 1;
        } else if t.is_punct(')') {
            depth = depth
                .checked_sub(1)
                .ok_or_else(|| anyhow!("unbalanced `)`"))?;
            if depth == 0 {
                return Ok(i + 1);
            }
        }
    }
    bail!("missing `)`")
}

fn join(tokens: &[Token]) -> String {
    tokens
        .iter()
        .map(|t| t.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Identifier or keyword (simple or escaped; `text` has no backslash).
    Word,
    Number,
    Punct,
    Str,
}

#[derive(Clone, Debug)]
struct Token {
    kind: Kind,
    text: String,
    escaped: bool,
}

impl Token {
    fn is_word(&self, w: &str) -> bool {
        self.kind == Kind::Word && !self.escaped && self.text == w
    }
    fn is_punct(&self, c: char) -> bool {
        self.kind == Kind::Punct && self.text.len() == 1 && self.text.starts_with(c)
    }
    fn ident(&self) -> Option<&str> {
        (self.kind == Kind::Word).then_some(self.text.as_str())
    }
    fn number(&self) -> Option<usize> {
        if self.kind == Kind::Number {
            self.text.replace('_', "").parse().ok()
        } else {
            None
        }
    }
    fn direction(&self) -> Option<Direction> {
        if self.is_word("input") {
            Some(Direction::Input)
        } else if self.is_word("output") {
            Some(Direction::Output)
        } else if self.is_word("inout") {
            Some(Direction::InOut)
        } else {
            None
        }
    }
}

/// A small Verilog tokenizer: drops comments, keeps identifiers (with `$`), escaped
/// identifiers, decimal numbers, strings and single-character punctuation.
fn tokenize(src: &str) -> Result<Vec<Token>> {
    let chars: Vec<char> = src.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    let mut line = 1;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start_line = line;
            i += 2;
            loop {
                match (chars.get(i), chars.get(i + 1)) {
                    (Some('*'), Some('/')) => {
                        i += 2;
                        break;
                    }
                    (Some(ch), _) => {
                        if *ch == '\n' {
                            line += 1;
                        }
                        i += 1;
                    }
                    (None, _) => bail!("unterminated /* comment starting on line {start_line}"),
                }
            }
        } else if c == '"' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            tokens.push(Token {
                kind: Kind::Str,
                text: chars[start..i.min(chars.len())].iter().collect(),
                escaped: false,
            });
        } else if c == '\\' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && !chars[i].is_whitespace() {
                i += 1;
            }
            tokens.push(Token {
                kind: Kind::Word,
                text: chars[start..i].iter().collect(),
                escaped: true,
            });
        } else if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            tokens.push(Token {
                kind: Kind::Word,
                text: chars[start..i].iter().collect(),
                escaped: false,
            });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(Token {
                kind: Kind::Number,
                text: chars[start..i].iter().collect(),
                escaped: false,
            });
        } else {
            tokens.push(Token {
                kind: Kind::Punct,
                text: c.to_string(),
                escaped: false,
            });
            i += 1;
        }
    }
    Ok(tokens)
}

/// `name` as a Verilog identifier: as is when it is a simple identifier (letters, digits,
/// `_`, `$`, not starting with a digit or `$`), otherwise escaped (`\name `, with the
/// terminating space).
pub fn verilog_identifier(name: &str) -> String {
    let simple = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if simple {
        name.to_string()
    } else {
        format!("\\{name} ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RUST_HDL: &str = "

module top(clock,s$data,s$valid,q,wide);
    
    // Module arguments
    input wire  clock;
    input wire  [7:0] s$data;
    input wire  s$valid;
    output reg  [7:0] q;
    output reg  [95:0] wide;
    
    // Stub signals
    reg  [7:0] cnt$d;
    wire  [7:0] cnt$q;
    
    // Sub module instances
    top$cnt cnt(
        .d(cnt$d),
        .q(cnt$q),
        .clock(clock)
    );
    always @(*) begin
        q = cnt$q & 8'hff;
        wide = 96'h0;
    end
endmodule // top


module top$cnt(d,q,clock);
    input wire  [7:0] d;
    output reg  [7:0] q;
    input wire  clock;
    always @(posedge clock) q <= d;
endmodule // top$cnt
";

    fn port(name: &str, direction: Direction, width: usize) -> Port {
        Port {
            name: name.into(),
            direction,
            width,
        }
    }

    #[test]
    fn parses_rust_hdl_header() {
        let ports = parse_ports(RUST_HDL).unwrap();
        assert_eq!(
            ports,
            vec![
                port("clock", Direction::Input, 1),
                port("s$data", Direction::Input, 8),
                port("s$valid", Direction::Input, 1),
                port("q", Direction::Output, 8),
                port("wide", Direction::Output, 96),
            ]
        );
        // The submodule `top$cnt` is found by its own name, not confused with `top`.
        let sub = parse_module_ports(RUST_HDL, "top$cnt").unwrap();
        assert_eq!(sub.len(), 3);
        assert_eq!(sub[1], port("q", Direction::Output, 8));
    }

    #[test]
    fn parses_signed_passthrough_inout_and_comments() {
        let v = "/* module top(x); */ module top(a, b$c, d, e, f);
            input wire signed [15:0] a; // input wire [3:0] zz;
            output wire  [0:3] b$c;
            inout wire  d;
            output reg e, f;
        endmodule";
        let ports = parse_ports(v).unwrap();
        assert_eq!(
            ports,
            vec![
                port("a", Direction::Input, 16),
                port("b$c", Direction::Output, 4),
                port("d", Direction::InOut, 1),
                port("e", Direction::Output, 1),
                port("f", Direction::Output, 1),
            ]
        );
    }

    #[test]
    fn parses_ansi_header() {
        let v = "module top #(parameter W = 8) (input wire clock, input [7:0] a$x, b,
                 output reg [8:0] sum, output \\odd.name );
                 endmodule";
        let ports = parse_ports(v).unwrap();
        assert_eq!(
            ports,
            vec![
                port("clock", Direction::Input, 1),
                port("a$x", Direction::Input, 8),
                port("b", Direction::Input, 8),
                port("sum", Direction::Output, 9),
                port("odd.name", Direction::Output, 1),
            ]
        );
    }

    #[test]
    fn reports_errors() {
        let e = parse_ports("module other(a); input a; endmodule").unwrap_err();
        assert!(e.to_string().contains("no `module top`"), "{e}");
        let e = parse_ports("module top(a, b); input a; endmodule").unwrap_err();
        assert!(format!("{e:#}").contains("`b`"), "{e:#}");
        let e = parse_ports("module top(a); input [W-1:0] a; endmodule").unwrap_err();
        assert!(format!("{e:#}").contains("integer literal"), "{e:#}");
        let e = parse_ports("module top(a); input a;").unwrap_err();
        assert!(e.to_string().contains("endmodule"), "{e}");
    }

    #[test]
    fn identifiers() {
        assert_eq!(verilog_identifier("s$data"), "s$data");
        assert_eq!(verilog_identifier("clock"), "clock");
        assert_eq!(verilog_identifier("odd.name"), "\\odd.name ");
        assert_eq!(verilog_identifier("1x"), "\\1x ");
    }
}
