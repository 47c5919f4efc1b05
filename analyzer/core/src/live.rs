//! Live capture: frames from an interface (libpcap) through the same engine as files,
//! read in slices of wall-clock time so a caller can report between slices.

use std::time::{Duration, Instant};

use crate::bpf::FrameFilter;
use crate::ingest::Frame;
use crate::libpcap::{LiveHandle, LivePacket};
use crate::parallel::{Engine, EngineOptions, Outcome};

/// libpcap read timeout: the longest a slice overruns its deadline.
const READ_TIMEOUT_MS: u32 = 100;

pub struct LiveCapture {
    handle: LiveHandle,
    engine: Engine,
    frames: u64,
    bytes: u64,
}

impl LiveCapture {
    /// Opens `iface`; `filter` (tcpdump syntax) runs in the kernel. The engine runs inline
    /// (one core) so verdicts of active flows can be taken at any time.
    pub fn open(iface: &str, filter: Option<&str>, snaplen: u32, mut opts: EngineOptions) -> Result<LiveCapture, String> {
        if let Some(f) = filter {
            FrameFilter::new(f)?; // syntax errors before touching the interface
        }
        let handle = LiveHandle::open(iface, snaplen, READ_TIMEOUT_MS, filter)?;
        opts.jobs = 1;
        Ok(LiveCapture { handle, engine: Engine::new(opts, None), frames: 0, bytes: 0 })
    }

    /// Captures and analyses for `slice` of wall-clock time.
    pub fn run_for(&mut self, slice: Duration) -> Result<(), String> {
        let deadline = Instant::now() + slice;
        while Instant::now() < deadline {
            let linktype = self.handle.linktype;
            match self.handle.next()? {
                LivePacket::Packet { ts_ns, origlen, data } => {
                    self.frames += 1;
                    self.bytes += data.len() as u64;
                    let frame = Frame {
                        number: self.frames,
                        ts_ns,
                        caplen: data.len() as u32,
                        origlen,
                        interface: 0,
                        linktype,
                        data,
                        options: None,
                    };
                    self.engine.frame(&frame);
                }
                LivePacket::Timeout => {}
            }
        }
        Ok(())
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Judges every flow and returns the whole result.
    pub fn finish(self) -> Outcome {
        self.engine.finish(self.bytes, None)
    }
}
