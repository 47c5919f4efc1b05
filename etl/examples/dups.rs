use std::collections::HashMap;
use tcpdiag_etl::*;
fn main() {
    let path = std::env::args().nth(1).unwrap();
    let mode = std::env::args().nth(2).unwrap_or_default();
    let obs = if mode == "all" { ObservationFilter::All } else if mode == "first" { ObservationFilter::FirstAppearance } else { ObservationFilter::FirstPerFlow };
    let mut r = EtlReader::open_with(&path, ReaderOptions { observation: obs, keep_drops: false, ..Default::default() }).unwrap();
    let mut by: HashMap<u64, Vec<String>> = HashMap::new();
    let mut n = 0;
    while let Some(f) = r.next_frame().unwrap() {
        n += 1;
        let k = tcpdiag_etl::flowkey::flow_key(f.linktype, &f.data);
        by.entry(f.packet_id.unwrap()).or_default().push(format!("{:?} lt{} len{} {:?}", f.observation, f.linktype, f.data.len(), k.map(|k| (k.protocol, k.a.1, k.b.1))));
    }
    println!("{n} frames, {} groups", by.len());
    let mut shown = 0;
    for (g, v) in &by {
        if v.len() > 1 && shown < 4 {
            shown += 1;
            println!("group {g}:");
            for s in v { println!("   {s}"); }
        }
    }
}
