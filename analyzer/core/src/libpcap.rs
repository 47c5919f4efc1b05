//! libpcap, loaded at run time: compiles tcpdump filter expressions to classic BPF and
//! opens interfaces for live capture. Loaded with `dlopen` on first use, so the core builds
//! and runs without it; only `--filter` and `live` need `libpcap.so.0.8` (Debian package
//! `libpcap0.8`, pulled in by `libpcap-dev`).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::{Mutex, OnceLock};

/// One classic BPF instruction (`struct bpf_insn`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BpfInsn {
    pub code: u16,
    pub jt: u8,
    pub jf: u8,
    pub k: u32,
}

#[repr(C)]
struct BpfProgram {
    bf_len: c_uint,
    bf_insns: *mut BpfInsn,
}

#[repr(C)]
struct Timeval {
    tv_sec: i64,
    tv_usec: i64,
}

/// `struct pcap_pkthdr` (Linux, 64-bit).
#[repr(C)]
struct PktHdr {
    ts: Timeval,
    caplen: u32,
    len: u32,
}

type Pcap = c_void;

#[repr(C)]
struct PollFd {
    fd: c_int,
    events: i16,
    revents: i16,
}
const POLLIN: i16 = 1;

extern "C" {
    fn poll(fds: *mut PollFd, nfds: u64, timeout: c_int) -> c_int;
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}
const RTLD_NOW: c_int = 2;
const PCAP_NETMASK_UNKNOWN: u32 = 0xffff_ffff;
const PCAP_ERRBUF_SIZE: usize = 256;
const PCAP_TSTAMP_PRECISION_NANO: c_int = 1;

/// The libpcap functions tcpdiag calls.
struct Api {
    open_dead: unsafe extern "C" fn(c_int, c_int) -> *mut Pcap,
    compile: unsafe extern "C" fn(*mut Pcap, *mut BpfProgram, *const c_char, c_int, u32) -> c_int,
    freecode: unsafe extern "C" fn(*mut BpfProgram),
    geterr: unsafe extern "C" fn(*mut Pcap) -> *const c_char,
    close: unsafe extern "C" fn(*mut Pcap),
    offline_filter: unsafe extern "C" fn(*const BpfProgram, *const PktHdr, *const u8) -> c_int,
    create: unsafe extern "C" fn(*const c_char, *mut c_char) -> *mut Pcap,
    set_snaplen: unsafe extern "C" fn(*mut Pcap, c_int) -> c_int,
    set_timeout: unsafe extern "C" fn(*mut Pcap, c_int) -> c_int,
    set_immediate_mode: unsafe extern "C" fn(*mut Pcap, c_int) -> c_int,
    set_tstamp_precision: unsafe extern "C" fn(*mut Pcap, c_int) -> c_int,
    activate: unsafe extern "C" fn(*mut Pcap) -> c_int,
    datalink: unsafe extern "C" fn(*mut Pcap) -> c_int,
    setfilter: unsafe extern "C" fn(*mut Pcap, *mut BpfProgram) -> c_int,
    next_ex: unsafe extern "C" fn(*mut Pcap, *mut *const PktHdr, *mut *const u8) -> c_int,
    statustostr: unsafe extern "C" fn(c_int) -> *const c_char,
    setnonblock: unsafe extern "C" fn(*mut Pcap, c_int, *mut c_char) -> c_int,
    selectable_fd: unsafe extern "C" fn(*mut Pcap) -> c_int,
}

// The function pointers are plain code addresses.
unsafe impl Send for Api {}
unsafe impl Sync for Api {}

fn load() -> Result<Api, String> {
    let mut handle = std::ptr::null_mut();
    for name in [c"libpcap.so.0.8", c"libpcap.so.1", c"libpcap.so"] {
        // SAFETY: dlopen with a NUL-terminated name.
        handle = unsafe { dlopen(name.as_ptr(), RTLD_NOW) };
        if !handle.is_null() {
            break;
        }
    }
    if handle.is_null() {
        return Err("libpcap not found (install the libpcap0.8 or libpcap-dev package)".into());
    }
    macro_rules! sym {
        ($name:literal) => {{
            // SAFETY: the symbol has the C signature declared in `Api` (pcap.h).
            let p = unsafe { dlsym(handle, concat!($name, "\0").as_ptr().cast()) };
            if p.is_null() {
                return Err(format!("libpcap lacks {}", $name));
            }
            unsafe { std::mem::transmute::<*mut c_void, _>(p) }
        }};
    }
    Ok(Api {
        open_dead: sym!("pcap_open_dead"),
        compile: sym!("pcap_compile"),
        freecode: sym!("pcap_freecode"),
        geterr: sym!("pcap_geterr"),
        close: sym!("pcap_close"),
        offline_filter: sym!("pcap_offline_filter"),
        create: sym!("pcap_create"),
        set_snaplen: sym!("pcap_set_snaplen"),
        set_timeout: sym!("pcap_set_timeout"),
        set_immediate_mode: sym!("pcap_set_immediate_mode"),
        set_tstamp_precision: sym!("pcap_set_tstamp_precision"),
        activate: sym!("pcap_activate"),
        datalink: sym!("pcap_datalink"),
        setfilter: sym!("pcap_setfilter"),
        next_ex: sym!("pcap_next_ex"),
        statustostr: sym!("pcap_statustostr"),
        setnonblock: sym!("pcap_setnonblock"),
        selectable_fd: sym!("pcap_get_selectable_fd"),
    })
}

fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(load).as_ref().map_err(Clone::clone)
}

/// Whether libpcap could be loaded.
pub fn available() -> bool {
    api().is_ok()
}

/// LINKTYPE_ (file header) → DLT_ (what `pcap_open_dead` takes) where they differ on Linux.
fn dlt_of(linktype: u32) -> c_int {
    match linktype {
        101 => 12, // LINKTYPE_RAW → DLT_RAW
        100 => 11, // LINKTYPE_ATM_RFC1483 → DLT_ATM_RFC1483
        lt => lt as c_int,
    }
}

/// A filter compiled by libpcap, kept as its instructions (and as libpcap's program, to
/// check our interpreter against `pcap_offline_filter`).
pub struct Compiled {
    pub insns: Vec<BpfInsn>,
    prog: BpfProgram,
}

// The program is owned here and read-only after compilation.
unsafe impl Send for Compiled {}

impl Drop for Compiled {
    fn drop(&mut self) {
        if let Ok(a) = api() {
            // SAFETY: `prog` came from pcap_compile and is freed once.
            unsafe { (a.freecode)(&mut self.prog) };
        }
    }
}

impl Compiled {
    /// libpcap's own verdict for one packet (`pcap_offline_filter`): the reference.
    pub fn reference_matches(&self, data: &[u8], wirelen: u32) -> bool {
        let a = api().expect("compiled implies loaded");
        let hdr = PktHdr { ts: Timeval { tv_sec: 0, tv_usec: 0 }, caplen: data.len() as u32, len: wirelen };
        // SAFETY: hdr.caplen bytes are readable at data.
        unsafe { (a.offline_filter)(&self.prog, &hdr, data.as_ptr()) != 0 }
    }
}

/// pcap_compile is not reentrant in every libpcap version.
static COMPILE_LOCK: Mutex<()> = Mutex::new(());

/// Compiles a tcpdump filter expression for frames of link type `linktype` (LINKTYPE_).
pub fn compile(expr: &str, linktype: u32, snaplen: u32) -> Result<Compiled, String> {
    let a = api()?;
    let c_expr = CString::new(expr).map_err(|_| "filter contains a NUL byte".to_string())?;
    let _guard = COMPILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    // SAFETY: straightforward use of the libpcap API; the handle is closed on every path.
    unsafe {
        let p = (a.open_dead)(dlt_of(linktype), snaplen as c_int);
        if p.is_null() {
            return Err(format!("libpcap cannot open link type {linktype}"));
        }
        let mut prog = BpfProgram { bf_len: 0, bf_insns: std::ptr::null_mut() };
        let rc = (a.compile)(p, &mut prog, c_expr.as_ptr(), 1, PCAP_NETMASK_UNKNOWN);
        if rc != 0 {
            let msg = CStr::from_ptr((a.geterr)(p)).to_string_lossy().into_owned();
            (a.close)(p);
            return Err(msg);
        }
        (a.close)(p);
        let insns = std::slice::from_raw_parts(prog.bf_insns, prog.bf_len as usize).to_vec();
        Ok(Compiled { insns, prog })
    }
}

/// A live capture handle (`pcap_create` … `pcap_activate`).
pub struct LiveHandle {
    p: *mut Pcap,
    pub linktype: u32,
    /// Descriptor to wait on: in immediate mode libpcap's own read timeout does not end a
    /// blocking read, so the handle is non-blocking and `next` polls.
    fd: c_int,
    timeout_ms: u32,
}

// One thread uses a handle at a time.
unsafe impl Send for LiveHandle {}

impl Drop for LiveHandle {
    fn drop(&mut self) {
        if let Ok(a) = api() {
            // SAFETY: p came from pcap_create and is closed once.
            unsafe { (a.close)(self.p) };
        }
    }
}

/// What one `LiveHandle::next` call found.
pub enum LivePacket<'a> {
    Packet { ts_ns: i64, origlen: u32, data: &'a [u8] },
    Timeout,
}

impl LiveHandle {
    /// Opens `iface` with nanosecond stamps, immediate delivery and the read timeout
    /// `timeout_ms`; `filter` runs in the kernel.
    pub fn open(iface: &str, snaplen: u32, timeout_ms: u32, filter: Option<&str>) -> Result<LiveHandle, String> {
        let a = api()?;
        let dev = CString::new(iface).map_err(|_| "interface name contains a NUL byte".to_string())?;
        let mut errbuf = [0 as c_char; PCAP_ERRBUF_SIZE];
        // SAFETY: libpcap API use per pcap(3PCAP); strings are NUL-terminated.
        unsafe {
            let p = (a.create)(dev.as_ptr(), errbuf.as_mut_ptr());
            if p.is_null() {
                return Err(CStr::from_ptr(errbuf.as_ptr()).to_string_lossy().into_owned());
            }
            let h = LiveHandle { p, linktype: 0, fd: -1, timeout_ms };
            (a.set_snaplen)(p, snaplen as c_int);
            (a.set_timeout)(p, timeout_ms as c_int);
            (a.set_immediate_mode)(p, 1);
            (a.set_tstamp_precision)(p, PCAP_TSTAMP_PRECISION_NANO);
            let rc = (a.activate)(p);
            if rc < 0 {
                let detail = CStr::from_ptr((a.geterr)(p)).to_string_lossy().into_owned();
                let status = CStr::from_ptr((a.statustostr)(rc)).to_string_lossy().into_owned();
                return Err(format!("{iface}: {status}{}{detail}", if detail.is_empty() { "" } else { ": " }));
            }
            let linktype = match (a.datalink)(p) {
                12 => 101, // DLT_RAW → LINKTYPE_RAW
                dlt => dlt as u32,
            };
            let mut h = h;
            h.linktype = linktype;
            if (a.setnonblock)(p, 1, errbuf.as_mut_ptr()) != 0 {
                return Err(CStr::from_ptr(errbuf.as_ptr()).to_string_lossy().into_owned());
            }
            h.fd = (a.selectable_fd)(p);
            if let Some(expr) = filter {
                let mut c = compile(expr, linktype, snaplen)?;
                if (a.setfilter)(p, &mut c.prog) != 0 {
                    return Err(CStr::from_ptr((a.geterr)(p)).to_string_lossy().into_owned());
                }
            }
            Ok(h)
        }
    }

    /// The next packet, or `Timeout` when the read timeout passed without one.
    pub fn next(&mut self) -> Result<LivePacket<'_>, String> {
        let a = api()?;
        let mut hdr: *const PktHdr = std::ptr::null();
        let mut data: *const u8 = std::ptr::null();
        // SAFETY: on rc == 1 libpcap hands out a header and caplen bytes valid until the
        // next call, which the returned borrow of `self` enforces.
        unsafe {
            let mut rc = (a.next_ex)(self.p, &mut hdr, &mut data);
            if rc == 0 && self.fd >= 0 {
                let mut pfd = PollFd { fd: self.fd, events: POLLIN, revents: 0 };
                poll(&mut pfd, 1, self.timeout_ms as c_int);
                rc = (a.next_ex)(self.p, &mut hdr, &mut data);
            }
            match rc {
                1 => {
                    let h = &*hdr;
                    let ts_ns = h.ts.tv_sec * 1_000_000_000 + h.ts.tv_usec;
                    Ok(LivePacket::Packet { ts_ns, origlen: h.len, data: std::slice::from_raw_parts(data, h.caplen as usize) })
                }
                0 => Ok(LivePacket::Timeout),
                _ => Err(CStr::from_ptr((a.geterr)(self.p)).to_string_lossy().into_owned()),
            }
        }
    }
}
