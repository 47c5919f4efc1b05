//! Compressed captures: gzip (RFC 1952), Zstandard (RFC 8878), xz and bzip2, recognised
//! by their magic numbers and decompressed as a stream, every member or frame of a
//! concatenated file in turn (`cat a.gz b.gz`, rotated `zstd` output).
//!
//! The decoders are pure Rust: flate2 on miniz_oxide, ruzstd, lzma-rust2 and bzip2 on
//! libbz2-rs-sys (measured in docs/scaling.md). Each runs on a thread of its own
//! ([`super::read_ahead`]), so decompression overlaps the reading of frames.

use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::zstd_frames::ZstdFrames;

/// A compression format, as its first bytes say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    Gzip,
    Zstd,
    Xz,
    Bzip2,
}

pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
pub const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// A zstd skippable frame (any of 16 magics) may come first.
const ZSTD_SKIPPABLE: u32 = 0x184d_2a50;
pub const XZ_MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0];
/// "BZh" and the block size digit 1-9.
pub const BZIP2_MAGIC: [u8; 3] = *b"BZh";

/// Memory the xz decoder may use (a dictionary of xz -9 is 64 MiB).
const XZ_MEM_LIMIT_KB: u32 = 256 << 10;

impl Compression {
    /// The compression the stream starting with `head` uses, if any.
    pub fn detect(head: &[u8]) -> Option<Compression> {
        if head.starts_with(&GZIP_MAGIC) {
            Some(Compression::Gzip)
        } else if head.starts_with(&ZSTD_MAGIC)
            || head.get(..4).is_some_and(|m| u32::from_le_bytes([m[0], m[1], m[2], m[3]]) & !0xf == ZSTD_SKIPPABLE)
        {
            Some(Compression::Zstd)
        } else if head.starts_with(&XZ_MAGIC) {
            Some(Compression::Xz)
        } else if head.starts_with(&BZIP2_MAGIC) && head.get(3).is_some_and(|d| (b'1'..=b'9').contains(d)) {
            Some(Compression::Bzip2)
        } else {
            None
        }
    }

    /// True when `head` (shorter than a full magic) could still begin one.
    pub fn is_prefix_of_magic(head: &[u8]) -> bool {
        [&GZIP_MAGIC[..], &ZSTD_MAGIC, &XZ_MAGIC, &BZIP2_MAGIC].iter().any(|m| m.starts_with(head))
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
        }
    }

    /// The decompressed stream of `raw`. Its errors are `InvalidData` for damaged data and
    /// `UnexpectedEof` when `raw` ends inside a member, whatever the decoder says.
    pub fn decoder(self, raw: Box<dyn Read + Send>) -> Box<dyn Read + Send> {
        let ended = Arc::new(AtomicBool::new(false));
        let raw = EndWatch { inner: raw, ended: ended.clone() };
        let inner: Box<dyn Read + Send> = match self {
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(raw)),
            Compression::Zstd => Box::new(ZstdFrames::new(raw)),
            Compression::Xz => Box::new(lzma_rust2::XzReader::new_mem_limit(raw, true, XZ_MEM_LIMIT_KB)),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(raw)),
        };
        Box::new(Classified { inner, ended, name: self.name() })
    }
}

/// Notes when the raw stream under a decoder has ended.
struct EndWatch {
    inner: Box<dyn Read + Send>,
    ended: Arc<AtomicBool>,
}

impl Read for EndWatch {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n == 0 && !buf.is_empty() {
            self.ended.store(true, Ordering::Relaxed);
        }
        Ok(n)
    }
}

/// A decoder whose errors say what happened in one sentence: the input was cut short, or
/// the compressed data is damaged. Errors of the raw stream itself pass through.
struct Classified {
    inner: Box<dyn Read + Send>,
    ended: Arc<AtomicBool>,
    name: &'static str,
}

impl Read for Classified {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            use io::ErrorKind::*;
            if self.ended.load(Ordering::Relaxed) || e.kind() == UnexpectedEof {
                io::Error::new(UnexpectedEof, format!("{} stream cut short", self.name))
            } else if matches!(e.kind(), InvalidData | InvalidInput | Other) {
                let text = one_line(&e);
                let text = text.strip_prefix(self.name).and_then(|t| t.strip_prefix(": ")).unwrap_or(&text);
                io::Error::new(InvalidData, format!("{}: {text}", self.name))
            } else {
                e
            }
        })
    }
}

/// An error's text on one line, without the decoder's Debug formatting.
fn one_line(e: &io::Error) -> String {
    let text = e.to_string();
    let first = text.lines().next().unwrap_or("").trim();
    if first.is_empty() {
        "damaged data".to_string()
    } else {
        first.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magics_name_their_format() {
        assert_eq!(Compression::detect(&[0x1f, 0x8b, 8, 0]), Some(Compression::Gzip));
        assert_eq!(Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd, 0]), Some(Compression::Zstd));
        assert_eq!(Compression::detect(&[0x5a, 0x2a, 0x4d, 0x18, 4, 0, 0, 0]), Some(Compression::Zstd));
        assert_eq!(Compression::detect(b"\xfd7zXZ\0\0"), Some(Compression::Xz));
        assert_eq!(Compression::detect(b"BZh91AY&SY"), Some(Compression::Bzip2));
        assert_eq!(Compression::detect(b"BZh0"), None);
        assert_eq!(Compression::detect(&[0xd4, 0xc3, 0xb2, 0xa1]), None);
        assert!(Compression::is_prefix_of_magic(&[0xfd, b'7']));
        assert!(!Compression::is_prefix_of_magic(&[0xd4]));
    }
}
