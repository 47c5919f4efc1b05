//! Replays the fuzz target's body (`tcpdiag_etl::fuzz::exercise`) without libFuzzer: the
//! seeds in `fuzz/seeds/etl/`, any crash files in `fuzz/artifacts/etl/`, and fixed-seed
//! mutations of the seeds (`TCPDIAG_FUZZ_ITERS` for more than the default 3 000).

use std::path::PathBuf;

fn inputs(dir: &str) -> Vec<Vec<u8>> {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz").join(dir);
    let Ok(rd) = std::fs::read_dir(d) else { return vec![] };
    let mut v: Vec<_> = rd.filter_map(|e| e.ok()).map(|e| e.path()).collect();
    v.sort();
    v.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

#[test]
fn seeds_and_mutations_never_panic() {
    let seeds = inputs("seeds/etl");
    assert!(seeds.len() >= 5, "regenerate with python3 tests/etlbuild.py --seeds fuzz/seeds/etl");
    for s in seeds.iter().chain(&inputs("artifacts/etl")) {
        tcpdiag_etl::fuzz::exercise(s);
    }
    let iters: usize = std::env::var("TCPDIAG_FUZZ_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(3_000);
    let mut x: u64 = 0x0000_E71F_00D5_EED5;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..iters {
        let mut m = seeds[i % seeds.len()].clone();
        for _ in 0..1 + next() % 6 {
            let at = (next() % m.len() as u64) as usize;
            m[at] = next() as u8;
        }
        if next() % 4 == 0 {
            let cut = (next() % m.len() as u64) as usize;
            m.truncate(cut);
        }
        tcpdiag_etl::fuzz::exercise(&m);
    }
}
