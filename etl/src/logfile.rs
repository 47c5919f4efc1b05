//! `TRACE_LOGFILE_HEADER`: the payload of the first event of the first buffer (a
//! system record with HookId 0), and the clock that turns raw event timestamps into
//! wall-clock time.
//!
//! Two layouts exist, differing only by the width of the two string pointers
//! (`LoggerName`, `LogFileName`) in the middle: everything after them moves by 8 bytes.

use crate::bytes::{i64_at, u32_at, u8_at, utf16z_at};

/// FILETIME (100 ns since 1601-01-01) of the Unix epoch.
pub const FILETIME_UNIX_EPOCH: i64 = 116_444_736_000_000_000;

mod field {
    pub const BUFFER_SIZE: usize = 0x00;
    pub const MAJOR_VERSION: usize = 0x04;
    pub const MINOR_VERSION: usize = 0x05;
    pub const PROVIDER_VERSION: usize = 0x08; // OS build number
    pub const NUMBER_OF_PROCESSORS: usize = 0x0C;
    pub const END_TIME: usize = 0x10;
    pub const LOG_FILE_MODE: usize = 0x20;
    pub const BUFFERS_WRITTEN: usize = 0x24;
    pub const POINTER_SIZE: usize = 0x2C;
    pub const EVENTS_LOST: usize = 0x30;
    pub const CPU_SPEED_MHZ: usize = 0x34;
    /// Start of `TimeZone` with 32-bit pointers; +8 with 64-bit pointers.
    pub const TIME_ZONE_32: usize = 0x40;
    pub const TIME_ZONE_LEN: usize = 172;
    /// `BootTime` with 32-bit pointers (then PerfFreq, StartTime, ReservedFlags, BuffersLost).
    pub const BOOT_TIME_32: usize = 0xF0;
    pub const LEN_32: usize = 0x110;
    const _: () = assert!(TIME_ZONE_32 + TIME_ZONE_LEN <= BOOT_TIME_32);
}

/// `ReservedFlags` values: which clock stamped the events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockType {
    /// QueryPerformanceCounter ticks at `perf_freq` Hz (the default).
    Qpc,
    /// FILETIME values.
    SystemTime,
    /// CPU cycle counter at `cpu_speed_mhz`.
    CpuCycle,
    /// Any other value; treated like QPC.
    Unknown(u32),
}

/// The fields of the log file header that matter for reading packets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogfileHeader {
    pub buffer_size: u32,
    pub version: (u8, u8),
    /// The Windows build that wrote the file.
    pub os_build: u32,
    pub number_of_processors: u32,
    pub end_time: i64,
    pub log_file_mode: u32,
    pub buffers_written: u32,
    pub pointer_size: u32,
    /// Events the session could not record (`EventsLost`).
    pub events_lost: u32,
    pub cpu_speed_mhz: u32,
    pub boot_time: i64,
    pub perf_freq: i64,
    /// FILETIME when the session started, matching the header event's raw timestamp.
    pub start_time: i64,
    pub clock: ClockType,
    /// Buffers the session could not write (`BuffersLost`).
    pub buffers_lost: u32,
    pub logger_name: String,
    pub log_file_name: String,
}

impl LogfileHeader {
    /// Parses the payload; `ptr64` comes from the enclosing record's header type.
    pub fn parse(p: &[u8], ptr64: bool) -> Option<LogfileHeader> {
        let shift = if ptr64 { 8 } else { 0 };
        if p.len() < field::LEN_32 + shift {
            return None;
        }
        let tail = field::BOOT_TIME_32 + shift;
        let clock = match u32_at(p, tail + 24)? {
            0 | 1 => ClockType::Qpc,
            2 => ClockType::SystemTime,
            3 => ClockType::CpuCycle,
            other => ClockType::Unknown(other),
        };
        let names_at = field::LEN_32 + shift;
        let (logger_name, used) = utf16z_at(p, names_at).unwrap_or_default();
        let (log_file_name, _) = utf16z_at(p, names_at + used).unwrap_or_default();
        Some(LogfileHeader {
            buffer_size: u32_at(p, field::BUFFER_SIZE)?,
            version: (u8_at(p, field::MAJOR_VERSION)?, u8_at(p, field::MINOR_VERSION)?),
            os_build: u32_at(p, field::PROVIDER_VERSION)?,
            number_of_processors: u32_at(p, field::NUMBER_OF_PROCESSORS)?,
            end_time: i64_at(p, field::END_TIME)?,
            log_file_mode: u32_at(p, field::LOG_FILE_MODE)?,
            buffers_written: u32_at(p, field::BUFFERS_WRITTEN)?,
            pointer_size: u32_at(p, field::POINTER_SIZE)?,
            events_lost: u32_at(p, field::EVENTS_LOST)?,
            cpu_speed_mhz: u32_at(p, field::CPU_SPEED_MHZ)?,
            boot_time: i64_at(p, tail)?,
            perf_freq: i64_at(p, tail + 8)?,
            start_time: i64_at(p, tail + 16)?,
            clock,
            buffers_lost: u32_at(p, tail + 28)?,
            logger_name,
            log_file_name,
        })
    }
}

/// Converts raw event timestamps to nanoseconds since the Unix epoch, exactly:
/// `ns = (start_time − epoch)·100 + (raw − base)·10⁹ / frequency`, in 128-bit integers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// FILETIME at `base`.
    start_time: i64,
    /// Raw clock value at `start_time` (the header event's timestamp).
    base: i64,
    /// Ticks per second; 0 means raw values are already FILETIMEs.
    frequency: i64,
}

impl Clock {
    pub fn new(h: &LogfileHeader, header_event_raw: i64) -> Clock {
        let frequency = match h.clock {
            ClockType::SystemTime => 0,
            ClockType::CpuCycle => h.cpu_speed_mhz as i64 * 1_000_000,
            ClockType::Qpc | ClockType::Unknown(_) => h.perf_freq,
        };
        Clock { start_time: h.start_time, base: header_event_raw, frequency: frequency.max(0) }
    }

    /// Nanoseconds since 1970-01-01 UTC, saturating at the `i64` range.
    pub fn to_unix_ns(&self, raw: i64) -> i64 {
        let ns: i128 = if self.frequency == 0 {
            (raw as i128 - FILETIME_UNIX_EPOCH as i128) * 100
        } else {
            let delta = raw as i128 - self.base as i128;
            (self.start_time as i128 - FILETIME_UNIX_EPOCH as i128) * 100
                + (delta * 1_000_000_000).div_euclid(self.frequency as i128)
        };
        ns.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qpc_ticks_become_unix_nanoseconds() {
        let h = LogfileHeader {
            buffer_size: 0,
            version: (10, 0),
            os_build: 0,
            number_of_processors: 1,
            end_time: 0,
            log_file_mode: 0,
            buffers_written: 0,
            pointer_size: 8,
            events_lost: 0,
            cpu_speed_mhz: 0,
            boot_time: 0,
            perf_freq: 3_000_000,
            start_time: FILETIME_UNIX_EPOCH + 10_000_000, // 1970-01-01T00:00:01
            clock: ClockType::Qpc,
            buffers_lost: 0,
            logger_name: String::new(),
            log_file_name: String::new(),
        };
        let c = Clock::new(&h, 1_000);
        assert_eq!(c.to_unix_ns(1_000), 1_000_000_000);
        assert_eq!(c.to_unix_ns(1_001), 1_000_000_333); // floor(10^9 / 3·10^6)
        assert_eq!(c.to_unix_ns(999), 999_999_666); // floor toward −∞
        let s = Clock::new(&LogfileHeader { clock: ClockType::SystemTime, ..h }, 0);
        assert_eq!(s.to_unix_ns(FILETIME_UNIX_EPOCH + 7), 700);
    }
}
