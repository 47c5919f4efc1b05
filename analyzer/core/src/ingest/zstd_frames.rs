//! Zstandard (RFC 8878) as one stream: every frame of the file in turn, skippable frames
//! (section 3.1.2) passed over. ruzstd's streaming decoder reads a single frame.

use std::io::{self, BufRead, BufReader, Read};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

/// Largest window accepted: what `zstd --long=31` writes (2 GiB) would need that much
/// memory; 128 MiB covers every level up to 22 and `--long=27`.
const MAX_WINDOW: u64 = 128 << 20;

pub struct ZstdFrames<R: Read> {
    src: BufReader<R>,
    decoder: FrameDecoder,
    /// A frame is being decoded (its header was read).
    in_frame: bool,
}

impl<R: Read> ZstdFrames<R> {
    pub fn new(src: R) -> Self {
        let mut decoder = FrameDecoder::new();
        decoder.set_max_window_size(MAX_WINDOW);
        ZstdFrames { src: BufReader::with_capacity(1 << 16, src), decoder, in_frame: false }
    }

    /// Starts the next data frame; false at the end of the stream.
    fn next_frame(&mut self) -> io::Result<bool> {
        loop {
            if self.src.fill_buf()?.is_empty() {
                return Ok(false);
            }
            match self.decoder.reset(&mut self.src) {
                Ok(()) => return Ok(true),
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame { length, .. })) => {
                    let skipped = io::copy(&mut (&mut self.src).take(length as u64), &mut io::sink())?;
                    if skipped < length as u64 {
                        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "skippable frame cut short"));
                    }
                }
                Err(e) => return Err(invalid(e)),
            }
        }
    }
}

fn invalid(e: impl std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

impl<R: Read> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            if !self.in_frame {
                if !self.next_frame()? {
                    return Ok(0);
                }
                self.in_frame = true;
            }
            while self.decoder.can_collect() == 0 && !self.decoder.is_finished() {
                self.decoder.decode_blocks(&mut self.src, BlockDecodingStrategy::UptoBlocks(1)).map_err(invalid)?;
            }
            let n = self.decoder.read(buf)?;
            if n > 0 {
                return Ok(n);
            }
            if self.decoder.is_finished() {
                self.in_frame = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One frame of raw (uncompressed) blocks holding `data`, written from RFC 8878: a
    /// frame header with the single-segment flag and a 1-byte content size, then one
    /// last raw block.
    fn raw_frame(data: &[u8]) -> Vec<u8> {
        assert!(data.len() < 256);
        let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0x20, data.len() as u8];
        let block_header = 1 | ((data.len() as u32) << 3); // last block, type raw, size
        f.extend_from_slice(&block_header.to_le_bytes()[..3]);
        f.extend_from_slice(data);
        f
    }

    #[test]
    fn concatenated_frames_and_skippable_frames_read_as_one_stream() {
        let mut file = raw_frame(b"first ");
        file.extend_from_slice(&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 9, 9, 9]); // skippable
        file.extend(raw_frame(b"second"));
        let mut out = String::new();
        ZstdFrames::new(&file[..]).read_to_string(&mut out).unwrap();
        assert_eq!(out, "first second");
    }

    #[test]
    fn damaged_header_is_invalid_data() {
        let mut file = raw_frame(b"abc");
        file[4] = 0xff; // reserved bits set
        let err = ZstdFrames::new(&file[..]).read_to_end(&mut Vec::new()).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }
}
