//! Plain LZ77 decompression (MS-XCA §2.3–2.4, `COMPRESSION_FORMAT_XPRESS`).
//!
//! ETW compresses the payload of each relogged buffer (`ETW_BUFFER_FLAG_COMPRESSED`)
//! with this format. The stream is a sequence of 32-bit flag words, read most
//! significant bit first: 0 = copy one literal byte, 1 = a match. A match is a 16-bit
//! word (high 13 bits: distance − 1, low 3 bits: length − 3); length 7 escapes to a
//! shared half-byte, then a byte, then a 16-bit and finally a 32-bit length.
//!
//! Every read and copy is bounds-checked and the output never grows past `max_out`:
//! malformed input yields [`DecompressError`], never a panic or unbounded output.

use std::fmt;

/// Why a compressed stream could not be decoded; `input_offset` is where it failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecompressError {
    pub what: &'static str,
    pub input_offset: usize,
    pub output_len: usize,
}

impl fmt::Display for DecompressError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at compressed byte {} (after {} decompressed bytes)",
            self.what, self.input_offset, self.output_len
        )
    }
}

impl std::error::Error for DecompressError {}

/// Decodes `input` into `out` (cleared first), producing at most `max_out` bytes.
pub fn decompress_lz77(input: &[u8], max_out: usize, out: &mut Vec<u8>) -> Result<(), DecompressError> {
    out.clear();
    out.reserve(max_out.min(64 << 20));
    let mut ip = 0usize;
    let mut flags: u32 = 0;
    let mut flag_count: u32 = 0;
    // Position of the byte whose high half-byte is still unused by a length escape.
    let mut pending_half: Option<usize> = None;
    let err = |what, ip, out: &Vec<u8>| DecompressError { what, input_offset: ip, output_len: out.len() };

    loop {
        if flag_count == 0 {
            let Some(w) = input.get(ip..ip + 4) else {
                return Ok(()); // no further flag word: the stream ended cleanly
            };
            flags = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            ip += 4;
            flag_count = 32;
        }
        flag_count -= 1;
        if flags & (1 << flag_count) == 0 {
            let Some(&lit) = input.get(ip) else {
                return Ok(());
            };
            if out.len() >= max_out {
                return Err(err("output exceeds the declared size", ip, out));
            }
            out.push(lit);
            ip += 1;
            continue;
        }
        // A match flag with no input left marks the end of the stream (MS-XCA §2.4).
        if ip == input.len() {
            return Ok(());
        }
        let Some(w) = input.get(ip..ip + 2) else {
            return Err(err("match word cut short", ip, out));
        };
        let word = u16::from_le_bytes([w[0], w[1]]) as usize;
        ip += 2;
        let distance = (word >> 3) + 1;
        let mut length = word & 7;
        if length == 7 {
            length = match pending_half.take() {
                Some(at) => (input[at] >> 4) as usize,
                None => {
                    let Some(&b) = input.get(ip) else {
                        return Err(err("length half-byte missing", ip, out));
                    };
                    pending_half = Some(ip);
                    ip += 1;
                    (b & 0x0F) as usize
                }
            };
            if length == 15 {
                let Some(&b) = input.get(ip) else {
                    return Err(err("length byte missing", ip, out));
                };
                ip += 1;
                length = b as usize;
                if length == 255 {
                    let Some(w) = input.get(ip..ip + 2) else {
                        return Err(err("16-bit length missing", ip, out));
                    };
                    ip += 2;
                    length = u16::from_le_bytes([w[0], w[1]]) as usize;
                    if length == 0 {
                        let Some(w) = input.get(ip..ip + 4) else {
                            return Err(err("32-bit length missing", ip, out));
                        };
                        ip += 4;
                        length = u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize;
                    }
                    if length < 15 + 7 {
                        return Err(err("escaped length shorter than its escape", ip, out));
                    }
                    length -= 15 + 7;
                }
                length += 15;
            }
            length += 7;
        }
        length += 3;
        copy_match(out, distance, length, max_out).map_err(|what| err(what, ip, out))?;
    }
}

/// Appends `length` bytes starting `distance` bytes back; overlapping copies repeat data.
pub(crate) fn copy_match(out: &mut Vec<u8>, distance: usize, length: usize, max_out: usize) -> Result<(), &'static str> {
    if distance > out.len() {
        return Err("match reaches before the start of the output");
    }
    if length > max_out.saturating_sub(out.len()) {
        return Err("output exceeds the declared size");
    }
    let start = out.len() - distance;
    if distance >= length {
        out.extend_from_within(start..start + length);
    } else {
        for i in 0..length {
            let b = out[start + i];
            out.push(b);
        }
    }
    Ok(())
}

/// A greedy Plain LZ77 encoder, for tests and synthetic ETL files only.
#[doc(hidden)]
pub fn compress_lz77(input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + input.len() / 8 + 8);
    let mut flag_pos = out.len();
    out.extend_from_slice(&[0; 4]);
    let (mut flags, mut nflags) = (0u32, 0u32);
    let mut half_at: Option<usize> = None;
    let mut head = vec![usize::MAX; 1 << 12];
    let hash = |i: usize| ((input[i] as usize) << 4 ^ (input[i + 1] as usize) << 2 ^ input[i + 2] as usize) & 0xFFF;
    let push_flag = |out: &mut Vec<u8>, bit: u32, flags: &mut u32, nflags: &mut u32, flag_pos: &mut usize| {
        *flags = (*flags << 1) | bit;
        *nflags += 1;
        if *nflags == 32 {
            out[*flag_pos..*flag_pos + 4].copy_from_slice(&flags.to_le_bytes());
            *flag_pos = out.len();
            out.extend_from_slice(&[0; 4]);
            *nflags = 0;
            *flags = 0;
        }
    };
    let mut i = 0;
    while i < input.len() {
        let mut best = (0usize, 0usize);
        if i + 3 <= input.len() {
            let h = hash(i);
            let cand = head[h];
            head[h] = i;
            if cand != usize::MAX && i - cand <= 8192 {
                let mut l = 0;
                while i + l < input.len() && input[cand + l] == input[i + l] && l < 4000 {
                    l += 1;
                }
                if l >= 3 {
                    best = (i - cand, l);
                }
            }
        }
        if best.1 == 0 {
            out.push(input[i]);
            push_flag(&mut out, 0, &mut flags, &mut nflags, &mut flag_pos);
            i += 1;
            continue;
        }
        let (dist, len) = best;
        let l = len - 3;
        out.extend_from_slice(&((((dist - 1) << 3) | l.min(7)) as u16).to_le_bytes());
        if l >= 7 {
            let rest = l - 7;
            let nib = rest.min(15) as u8;
            match half_at.take() {
                Some(at) => out[at] |= nib << 4,
                None => {
                    half_at = Some(out.len());
                    out.push(nib);
                }
            }
            if rest >= 15 {
                let r = rest - 15;
                if r < 255 {
                    out.push(r as u8);
                } else {
                    out.push(255);
                    out.extend_from_slice(&((r + 15 + 7) as u16).to_le_bytes());
                }
            }
        }
        push_flag(&mut out, 1, &mut flags, &mut nflags, &mut flag_pos);
        i += len;
    }
    // Pad the last flag word with ones: a match flag at end of input ends decoding.
    let used = nflags;
    let final_flags = if used == 0 { u32::MAX } else { (flags << (32 - used)) | ((1u32 << (32 - used)) - 1) };
    out[flag_pos..flag_pos + 4].copy_from_slice(&final_flags.to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roundtrip(data: &[u8]) {
        let c = compress_lz77(data);
        let mut out = Vec::new();
        decompress_lz77(&c, data.len(), &mut out).unwrap();
        assert_eq!(out, data);
    }

    #[test]
    fn hand_built_stream_with_overlapping_match() {
        // flags: literal 'a', literal 'b', match (distance 2, length 5); rest ones = end.
        let flags: u32 = 0b001u32 << 29 | ((1 << 29) - 1);
        let mut s = flags.to_le_bytes().to_vec();
        s.extend_from_slice(b"ab");
        s.extend_from_slice(&(((2 - 1) << 3 | (5 - 3)) as u16).to_le_bytes());
        let mut out = Vec::new();
        decompress_lz77(&s, 100, &mut out).unwrap();
        assert_eq!(out, b"abababa");
    }

    #[test]
    fn long_lengths_use_every_escape() {
        let mut data = vec![7u8; 70_000];
        data.extend((0..5000u32).map(|i| (i * 31 % 251) as u8));
        data.extend(std::iter::repeat_n(b'x', 300));
        data.extend(std::iter::repeat_n(b'y', 20));
        roundtrip(&data);
        roundtrip(b"");
        roundtrip(b"abc");
    }

    #[test]
    fn distance_before_start_is_an_error() {
        let mut s = (1u32 << 31).to_le_bytes().to_vec();
        s.extend_from_slice(&((10 << 3) as u16).to_le_bytes());
        let e = decompress_lz77(&s, 100, &mut Vec::new()).unwrap_err();
        assert_eq!(e.what, "match reaches before the start of the output");
    }

    #[test]
    fn output_is_capped() {
        let data = vec![0u8; 10_000];
        let c = compress_lz77(&data);
        assert!(decompress_lz77(&c, 9_999, &mut Vec::new()).is_err());
    }
}
