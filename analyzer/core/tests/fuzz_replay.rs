//! Every fuzz target's body without libFuzzer (`fuzz/fuzz_targets/{ingest,decode,analyse}.rs`
//! include the same files): replays every committed seed and crash reproducer
//! (`fuzz/seeds/<target>/`, `fuzz/artifacts/<target>/`) and a fixed-seed stream of
//! mutations of the seeds, so that stable-toolchain CI keeps the properties: no input
//! panics, hangs or breaks an invariant. `TCPDIAG_FUZZ_ITERS` raises the mutation count.

use std::path::{Path, PathBuf};

include!("common/fuzz_ingest.rs");
include!("common/fuzz_decode.rs");
include!("common/fuzz_analyse.rs");

fn files_in(dir: &Path) -> Vec<Vec<u8>> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    paths.sort();
    paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// xorshift64*: deterministic, no dependency.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Values that sit on the edges of length checks.
const INTERESTING: [u32; 12] = [
    0,
    1,
    3,
    4,
    8,
    11,
    12,
    28,
    0x7fff_ffff,
    0xffff_ffff,
    0x0004_0001,
    0x0a0d_0d0a,
];

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut d = input.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = d.len();
        match rng.below(6) {
            0 if len > 0 => {
                let i = rng.below(len);
                d[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                d[i] = [0, 0xff, 0x7f, 0x80, 1][rng.below(5)];
            }
            2 if len >= 4 => {
                let i = rng.below(len / 4) * 4;
                let v = INTERESTING[rng.below(INTERESTING.len())];
                let bytes = if rng.below(2) == 0 {
                    v.to_le_bytes()
                } else {
                    v.to_be_bytes()
                };
                d[i..i + 4].copy_from_slice(&bytes);
            }
            3 => d.truncate(rng.below(len + 1)),
            4 if len > 0 => {
                let (a, b) = (rng.below(len), rng.below(len));
                let chunk = d[a.min(b)..a.max(b)].to_vec();
                let at = rng.below(len);
                d.splice(at..at, chunk);
            }
            _ if len > 0 => {
                let (a, b) = (rng.below(len), rng.below(len));
                d.drain(a.min(b)..a.max(b));
            }
            _ => {}
        }
    }
    d
}

/// Mutation count: `TCPDIAG_FUZZ_ITERS`, else `default`.
fn iterations(default: usize) -> usize {
    std::env::var("TCPDIAG_FUZZ_ITERS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Seeds and saved artifacts of `target` through `body`, then `iters` mutations of the seeds.
fn replay(target: &str, body: fn(&[u8]), iters: usize) {
    let dir = fuzz_dir();
    let seeds = files_in(&dir.join("seeds").join(target));
    assert!(!seeds.is_empty(), "no seeds in {}/seeds/{target}", dir.display());
    for input in seeds.iter().chain(&files_in(&dir.join("artifacts").join(target))) {
        body(input);
    }
    let mut rng = Rng(0x7cd1_a9f0_0dd5_eed5 ^ target.len() as u64);
    for i in 0..iters {
        let seed = &seeds[i % seeds.len()];
        let input = mutate(&mut rng, seed);
        if std::panic::catch_unwind(|| body(&input)).is_err() {
            let path = std::env::temp_dir().join(format!("tcpdiag-fuzz-{target}-crash-{i}"));
            let _ = std::fs::write(&path, &input);
            panic!("{target}: mutation {i} panicked; input saved to {}", path.display());
        }
    }
}

#[test]
fn ingest_seeds_artifacts_and_mutations_never_panic() {
    replay("ingest", read_everything, iterations(20_000));
}

#[test]
fn decode_seeds_artifacts_and_mutations_never_panic() {
    replay("decode", decode_everything, iterations(20_000));
}

#[test]
fn analyse_seeds_artifacts_and_mutations_keep_the_invariants() {
    replay("analyse", analyse_everything, iterations(5_000));
}
