//! Capture filters: tcpdump's filter language (pcap-filter(7)), compiled by libpcap to
//! classic BPF (one program per link type) and run here, per frame, by a small
//! interpreter with the semantics of libpcap's `bpf_filter()`: a load outside the captured
//! bytes or a division by zero rejects the packet; the program's return value is the
//! snap length, 0 meaning reject.

use crate::ingest::Frame;
use crate::libpcap::{self, BpfInsn, Compiled};

/// Instruction classes and fields (`pcap/bpf.h`).
mod op {
    pub const LD: u16 = 0x00;
    pub const LDX: u16 = 0x01;
    pub const ST: u16 = 0x02;
    pub const STX: u16 = 0x03;
    pub const ALU: u16 = 0x04;
    pub const JMP: u16 = 0x05;
    pub const RET: u16 = 0x06;
    pub const MISC: u16 = 0x07;

    pub const W: u16 = 0x00;
    pub const H: u16 = 0x08;
    pub const B: u16 = 0x10;

    pub const IMM: u16 = 0x00;
    pub const ABS: u16 = 0x20;
    pub const IND: u16 = 0x40;
    pub const MEM: u16 = 0x60;
    pub const LEN: u16 = 0x80;
    pub const MSH: u16 = 0xa0;

    pub const ADD: u16 = 0x00;
    pub const SUB: u16 = 0x10;
    pub const MUL: u16 = 0x20;
    pub const DIV: u16 = 0x30;
    pub const OR: u16 = 0x40;
    pub const AND: u16 = 0x50;
    pub const LSH: u16 = 0x60;
    pub const RSH: u16 = 0x70;
    pub const NEG: u16 = 0x80;
    pub const MOD: u16 = 0x90;
    pub const XOR: u16 = 0xa0;

    pub const JA: u16 = 0x00;
    pub const JEQ: u16 = 0x10;
    pub const JGT: u16 = 0x20;
    pub const JGE: u16 = 0x30;
    pub const JSET: u16 = 0x40;

    pub const K: u16 = 0x00;
    pub const X: u16 = 0x08;
    pub const A: u16 = 0x10;

    pub const TAX: u16 = 0x00;
    pub const TXA: u16 = 0x80;
}

/// Scratch memory words (`BPF_MEMWORDS`).
const MEMWORDS: usize = 16;

/// A classic BPF program.
#[derive(Debug, Clone)]
pub struct Program {
    insns: Vec<BpfInsn>,
}

#[inline]
fn load(pkt: &[u8], at: u32, size: u16) -> Option<u32> {
    let at = at as usize;
    let b = |n: usize| pkt.get(at..at.checked_add(n)?);
    Some(match size {
        op::W => u32::from_be_bytes(b(4)?.try_into().ok()?),
        op::H => u16::from_be_bytes(b(2)?.try_into().ok()?) as u32,
        op::B => *pkt.get(at)? as u32,
        _ => return None,
    })
}

impl Program {
    pub fn new(insns: Vec<BpfInsn>) -> Program {
        Program { insns }
    }

    /// Runs the program over the captured bytes `pkt` of a packet `wirelen` bytes long;
    /// returns its result (0 = reject).
    pub fn run(&self, pkt: &[u8], wirelen: u32) -> u32 {
        let (mut a, mut x) = (0u32, 0u32);
        let mut mem = [0u32; MEMWORDS];
        let mut pc = 0usize;
        loop {
            let Some(i) = self.insns.get(pc) else { return 0 };
            pc += 1;
            let k = i.k;
            match i.code & 0x07 {
                op::LD => {
                    a = match i.code & 0xe0 {
                        op::ABS => match load(pkt, k, i.code & 0x18) {
                            Some(v) => v,
                            None => return 0,
                        },
                        op::IND => match x.checked_add(k).and_then(|at| load(pkt, at, i.code & 0x18)) {
                            Some(v) => v,
                            None => return 0,
                        },
                        op::IMM => k,
                        op::MEM => mem[k as usize % MEMWORDS],
                        op::LEN => wirelen,
                        _ => return 0,
                    }
                }
                op::LDX => {
                    x = match i.code & 0xe0 {
                        op::IMM => k,
                        op::MEM => mem[k as usize % MEMWORDS],
                        op::LEN => wirelen,
                        // 4 × the low nibble of a byte: the IPv4 header length.
                        op::MSH => match pkt.get(k as usize) {
                            Some(b) => ((b & 0x0f) as u32) << 2,
                            None => return 0,
                        },
                        _ => return 0,
                    }
                }
                op::ST => mem[k as usize % MEMWORDS] = a,
                op::STX => mem[k as usize % MEMWORDS] = x,
                op::ALU => {
                    let v = if i.code & op::X != 0 { x } else { k };
                    a = match i.code & 0xf0 {
                        op::ADD => a.wrapping_add(v),
                        op::SUB => a.wrapping_sub(v),
                        op::MUL => a.wrapping_mul(v),
                        op::DIV if v == 0 => return 0,
                        op::DIV => a / v,
                        op::MOD if v == 0 => return 0,
                        op::MOD => a % v,
                        op::AND => a & v,
                        op::OR => a | v,
                        op::XOR => a ^ v,
                        // Shifts of 32 or more give 0 (libpcap checks; C would be undefined).
                        op::LSH => a.checked_shl(v).unwrap_or(0),
                        op::RSH => a.checked_shr(v).unwrap_or(0),
                        op::NEG => a.wrapping_neg(),
                        _ => return 0,
                    }
                }
                op::JMP => {
                    let v = if i.code & op::X != 0 { x } else { k };
                    let skip = match i.code & 0xf0 {
                        op::JA => k as usize,
                        op::JEQ => (if a == v { i.jt } else { i.jf }) as usize,
                        op::JGT => (if a > v { i.jt } else { i.jf }) as usize,
                        op::JGE => (if a >= v { i.jt } else { i.jf }) as usize,
                        op::JSET => (if a & v != 0 { i.jt } else { i.jf }) as usize,
                        _ => return 0,
                    };
                    pc += skip;
                }
                op::RET => {
                    return match i.code & 0x18 {
                        op::K => k,
                        op::A => a,
                        _ => 0,
                    }
                }
                op::MISC => match i.code & 0xf8 {
                    op::TAX => x = a,
                    op::TXA => a = x,
                    _ => return 0,
                },
                _ => return 0,
            }
        }
    }
}

/// A filter expression applied to frames of any link type: compiled once per link type
/// met (a pcapng file may mix them).
#[derive(Clone)]
pub struct FrameFilter {
    expr: String,
    snaplen: u32,
    /// (link type, program or the compile error for it).
    programs: Vec<(u32, Result<Program, String>)>,
}

impl FrameFilter {
    /// Checks the expression now (against Ethernet) so a typo fails before any reading.
    pub fn new(expr: &str) -> Result<FrameFilter, String> {
        let mut f = FrameFilter { expr: expr.to_string(), snaplen: 262_144, programs: Vec::new() };
        let first = f.compile(1)?;
        f.programs.push((1, Ok(first)));
        Ok(f)
    }

    fn compile(&self, linktype: u32) -> Result<Program, String> {
        let c: Compiled = libpcap::compile(&self.expr, linktype, self.snaplen)?;
        Ok(Program::new(c.insns.clone()))
    }

    pub fn expr(&self) -> &str {
        &self.expr
    }

    /// Compiles the program for `linktype` now, so clones on other threads need not.
    pub fn prepare(&mut self, linktype: u32) {
        if !self.programs.iter().any(|(t, _)| *t == linktype) {
            let p = self.compile(linktype);
            self.programs.push((linktype, p));
        }
    }

    /// Whether the frame passes. A link type the expression cannot apply to (libpcap
    /// refuses to compile it there) rejects all its frames.
    #[inline]
    pub fn matches(&mut self, frame: &Frame<'_>) -> bool {
        let lt = frame.linktype;
        let prog = match self.programs.iter().find(|(t, _)| *t == lt) {
            Some((_, p)) => p,
            None => {
                let p = self.compile(lt);
                self.programs.push((lt, p));
                &self.programs.last().unwrap().1
            }
        };
        match prog {
            Ok(p) => p.run(frame.data, frame.origlen) != 0,
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ins(code: u16, jt: u8, jf: u8, k: u32) -> BpfInsn {
        BpfInsn { code, jt, jf, k }
    }

    /// `ldh [12]; jeq #0x800 jt 0 jf 1; ret #262144; ret #0` — "ip" on Ethernet.
    fn ip_on_ethernet() -> Program {
        Program::new(vec![
            ins(op::LD | op::H | op::ABS, 0, 0, 12),
            ins(op::JMP | op::JEQ | op::K, 0, 1, 0x800),
            ins(op::RET | op::K, 0, 0, 262_144),
            ins(op::RET | op::K, 0, 0, 0),
        ])
    }

    #[test]
    fn ethertype_ipv4_passes() {
        let mut pkt = vec![0u8; 60];
        pkt[12] = 0x08;
        assert_eq!(ip_on_ethernet().run(&pkt, 60), 262_144);
        pkt[13] = 0xdd;
        assert_eq!(ip_on_ethernet().run(&pkt, 60), 0);
    }

    #[test]
    fn load_past_captured_bytes_rejects() {
        assert_eq!(ip_on_ethernet().run(&[0u8; 13], 60), 0);
    }

    #[test]
    fn division_by_zero_rejects() {
        let p = Program::new(vec![ins(op::LD | op::IMM, 0, 0, 7), ins(op::ALU | op::DIV | op::X, 0, 0, 0), ins(op::RET | op::A, 0, 0, 0)]);
        assert_eq!(p.run(&[], 0), 0);
    }

    #[test]
    fn msh_loads_ipv4_header_length() {
        let p = Program::new(vec![ins(op::LDX | op::B | op::MSH, 0, 0, 0), ins(op::MISC | op::TXA, 0, 0, 0), ins(op::RET | op::A, 0, 0, 0)]);
        assert_eq!(p.run(&[0x45], 1), 20);
    }

    #[test]
    fn running_off_the_end_rejects() {
        let p = Program::new(vec![ins(op::LD | op::IMM, 0, 0, 1)]);
        assert_eq!(p.run(&[], 0), 0);
    }
}
