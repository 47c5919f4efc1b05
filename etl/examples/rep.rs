use std::collections::HashMap;
use tcpdiag_etl::*;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mut r = EtlReader::open(&path).unwrap();
    let mut last: HashMap<Vec<u8>, (i64, String)> = HashMap::new();
    let mut n = 0;
    while let Some(f) = r.next_frame().unwrap() {
        if f.drop.is_some() { continue }
        let Some((_, ip)) = flowkey::ip_packet(f.linktype, &f.data) else { continue };
        let d = format!("{:?} lt{} {:?}", f.observation, f.linktype, f.direction);
        if let Some((t, prev)) = last.insert(ip.to_vec(), (f.ts_ns, d.clone())) {
            if f.ts_ns - t < 10_000_000 && n < 6 { n += 1; println!("dt={}us\n  {prev}\n  {d}\n  {}", (f.ts_ns - t)/1000, ip[..40.min(ip.len())].iter().map(|b| format!("{b:02x}")).collect::<String>()); }
        }
    }
}
