//! LZ77+Huffman decompression (MS-XCA §2.1–2.2, `COMPRESSION_FORMAT_XPRESS_HUFF`).
//!
//! No ETL file in the corpus uses it (ETW compresses buffers with Plain LZ77, see
//! [`crate::xpress`]); it is here for files written by other compressing loggers.
//! Output comes in 64 KiB chunks; each chunk starts with 256 bytes holding 4-bit code
//! lengths for 512 symbols (0–255 literals, 256–511 matches), then a bit stream read as
//! little-endian 16-bit words, most significant bit first. Raw bytes for long match
//! lengths sit between the words, at the input position when they are needed.
//! Malformed input gives [`DecompressError`], never a panic or more than `max_out` bytes.

use crate::xpress::{copy_match, DecompressError};

const CHUNK: usize = 65_536;
const TABLE_LEN: usize = 256;
const SYMBOLS: usize = 512;
const MAX_BITS: u32 = 15;
const INVALID: u16 = u16::MAX;

/// A 15-bit lookup table of the canonical code given by `lengths`.
fn decoding_table(lengths: &[u8; SYMBOLS]) -> Result<Vec<u16>, &'static str> {
    let mut table = vec![INVALID; 1 << MAX_BITS];
    let mut next = 0usize;
    for len in 1..=MAX_BITS {
        for (sym, _) in lengths.iter().enumerate().filter(|(_, &l)| l as u32 == len) {
            let span = 1usize << (MAX_BITS - len);
            let end = next + span;
            if end > table.len() {
                return Err("Huffman code lengths over-subscribed");
            }
            table[next..end].fill(sym as u16);
            next = end;
        }
    }
    if next == 0 {
        return Err("Huffman table has no symbols");
    }
    Ok(table)
}

struct Bits<'a> {
    input: &'a [u8],
    pos: usize,
    next: u32,
    extra: i32,
}

impl Bits<'_> {
    fn word(&mut self) -> Result<u32, &'static str> {
        // Past the end, words read as zero: the encoder's final word may be implicit.
        let w = match self.input.get(self.pos..self.pos + 2) {
            Some(w) => u16::from_le_bytes([w[0], w[1]]) as u32,
            None if self.pos <= self.input.len() + 4 => 0,
            None => return Err("bit stream runs past the input"),
        };
        self.pos += 2;
        Ok(w)
    }

    fn consume(&mut self, n: u32) -> Result<(), &'static str> {
        if n == 0 {
            return Ok(());
        }
        self.next = self.next.checked_shl(n).unwrap_or(0);
        self.extra -= n as i32;
        if self.extra < 0 {
            self.next |= self.word()?.checked_shl((-self.extra) as u32).unwrap_or(0);
            self.extra += 16;
        }
        Ok(())
    }

    fn byte(&mut self) -> Result<usize, &'static str> {
        let b = *self.input.get(self.pos).ok_or("match length byte missing")?;
        self.pos += 1;
        Ok(b as usize)
    }
}

/// Decodes `input` into `out` (cleared first), producing exactly `max_out` bytes unless
/// the stream ends early with the end-of-stream symbol.
pub fn decompress_huffman(input: &[u8], max_out: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    out.clear();
    let mut bits = Bits { input, pos: 0, next: 0, extra: 0 };
    let fail = |what, bits: &Bits, out: &Vec<u8>| DecompressError { what, input_offset: bits.pos, output_len: out.len() };
    while out.len() < max_out {
        let Some(t) = input.get(bits.pos..bits.pos + TABLE_LEN) else {
            return Err(fail("Huffman table cut short", &bits, out));
        };
        let mut lengths = [0u8; SYMBOLS];
        for (i, b) in t.iter().enumerate() {
            lengths[2 * i] = b & 0x0F;
            lengths[2 * i + 1] = b >> 4;
        }
        let table = decoding_table(&lengths).map_err(|w| fail(w, &bits, out))?;
        bits.pos += TABLE_LEN;
        let (w0, w1) = (bits.word(), bits.word());
        bits.next = (w0.map_err(|w| fail(w, &bits, out))? << 16) | w1.map_err(|w| fail(w, &bits, out))?;
        bits.extra = 16;
        let chunk_end = (out.len() + CHUNK).min(max_out);
        while out.len() < chunk_end {
            let sym = table[(bits.next >> (32 - MAX_BITS)) as usize];
            if sym == INVALID {
                return Err(fail("bits match no Huffman code", &bits, out));
            }
            bits.consume(lengths[sym as usize] as u32).map_err(|w| fail(w, &bits, out))?;
            if sym < 256 {
                out.push(sym as u8);
                continue;
            }
            if sym == 256 && bits.pos >= input.len() {
                return Ok(()); // end-of-stream symbol
            }
            let m = (sym - 256) as usize;
            let offset_bits = (m >> 4) as u32;
            let mut length = m & 15;
            if length == 15 {
                length = bits.byte().map_err(|w| fail(w, &bits, out))?;
                if length == 255 {
                    let lo = bits.byte().map_err(|w| fail(w, &bits, out))?;
                    let hi = bits.byte().map_err(|w| fail(w, &bits, out))?;
                    length = lo | hi << 8;
                    if length < 15 {
                        return Err(fail("escaped length shorter than its escape", &bits, out));
                    }
                    length -= 15;
                }
                length += 15;
            }
            length += 3;
            let low = if offset_bits == 0 { 0 } else { (bits.next >> (32 - offset_bits)) as usize };
            let distance = low + (1usize << offset_bits);
            bits.consume(offset_bits).map_err(|w| fail(w, &bits, out))?;
            copy_match(out, distance, length, max_out).map_err(|w| fail(w, &bits, out))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test encoder: every symbol gets a 9-bit code (a complete canonical code), so
    /// the code of a symbol is the symbol itself. Word slots are reserved lazily, when
    /// the first bit of a word is written, mirroring the decoder's refill.
    struct Enc {
        out: Vec<u8>,
        slots: [usize; 2],
        acc: u32,
        n: u32,
    }

    impl Enc {
        fn chunk_start(&mut self) {
            self.out.extend(std::iter::repeat_n(0x99, TABLE_LEN)); // 9 | 9 << 4
            self.slots = [self.out.len(), self.out.len() + 2];
            self.out.extend_from_slice(&[0; 4]);
            self.acc = 0;
            self.n = 0;
        }
        fn bits(&mut self, v: u32, len: u32) {
            for i in (0..len).rev() {
                if self.n == 16 {
                    self.flush_word();
                    self.slots = [self.slots[1], self.out.len()];
                    self.out.extend_from_slice(&[0, 0]);
                }
                self.acc = self.acc << 1 | (v >> i & 1);
                self.n += 1;
            }
        }
        fn flush_word(&mut self) {
            let w = (self.acc << (16 - self.n)) as u16;
            self.out[self.slots[0]..self.slots[0] + 2].copy_from_slice(&w.to_le_bytes());
            self.acc = 0;
            self.n = 0;
        }
        fn chunk_end(&mut self) {
            self.flush_word();
        }
    }

    /// Literal-and-match tokens → stream; matches are (distance, length).
    fn encode(tokens: &[Result<u8, (usize, usize)>], chunk_of: &[usize]) -> Vec<u8> {
        let mut e = Enc { out: vec![], slots: [0, 0], acc: 0, n: 0 };
        for (i, t) in tokens.iter().enumerate() {
            if i == 0 || chunk_of[i] != chunk_of[i - 1] {
                if i > 0 {
                    e.chunk_end();
                }
                e.chunk_start();
            }
            match *t {
                Ok(b) => e.bits(b as u32, 9),
                Err((dist, len)) => {
                    let ob = usize::BITS - 1 - dist.leading_zeros();
                    let l = len - 3;
                    e.bits(256 + (ob << 4) + l.min(15) as u32, 9);
                    if l >= 15 {
                        if l - 15 < 255 {
                            e.out.push((l - 15) as u8);
                        } else {
                            e.out.push(255);
                            e.out.extend_from_slice(&(l as u16).to_le_bytes());
                        }
                    }
                    e.bits((dist - (1 << ob)) as u32, ob);
                }
            }
        }
        e.chunk_end();
        e.out
    }

    #[test]
    fn literals_and_matches_with_long_lengths() {
        let mut tokens: Vec<Result<u8, (usize, usize)>> = b"abcabcabc".iter().map(|&b| Ok(b)).collect();
        tokens.push(Err((3, 20))); // length escape byte
        tokens.push(Err((1, 400))); // 16-bit length
        tokens.push(Err((12, 5)));
        let mut expect = b"abcabcabc".to_vec();
        copy_match(&mut expect, 3, 20, 1 << 20).unwrap();
        copy_match(&mut expect, 1, 400, 1 << 20).unwrap();
        copy_match(&mut expect, 12, 5, 1 << 20).unwrap();
        let s = encode(&tokens, &vec![0; tokens.len()]);
        let mut out = Vec::new();
        decompress_huffman(&s, expect.len(), &mut out).unwrap();
        assert_eq!(out, expect);
    }

    #[test]
    fn second_chunk_starts_a_new_table() {
        let data: Vec<u8> = (0..CHUNK + 700).map(|i| (i * 7 % 251) as u8).collect();
        let tokens: Vec<_> = data.iter().map(|&b| Ok(b)).collect();
        let chunk_of: Vec<usize> = (0..data.len()).map(|i| i / CHUNK).collect();
        let s = encode(&tokens, &chunk_of);
        let mut out = Vec::new();
        decompress_huffman(&s, data.len(), &mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn malformed_streams_are_errors() {
        let mut out = Vec::new();
        assert!(decompress_huffman(&[0u8; 10], 5, &mut out).is_err()); // table cut short
        assert!(decompress_huffman(&[0u8; 300], 5, &mut out).is_err()); // no symbols
        let mut over = vec![0x11u8; 256]; // 512 one-bit codes: over-subscribed
        over.extend_from_slice(&[0; 8]);
        assert!(decompress_huffman(&over, 5, &mut out).is_err());
        // A match before any output.
        let s = encode(&[Err((4, 3))], &[0]);
        assert!(decompress_huffman(&s, 3, &mut out).is_err());
        // Random garbage after a valid table never panics.
        let mut x = 0x1234_5678u32;
        for _ in 0..500 {
            let mut g = vec![0x99u8; 256];
            for _ in 0..64 {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                g.push(x as u8);
            }
            let _ = decompress_huffman(&g, 1000, &mut out);
            assert!(out.len() <= 1000);
        }
    }
}
