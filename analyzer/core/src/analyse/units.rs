//! Numbers as an engineer reads them — the one formatter every surface uses (the CLI
//! text, JSON messages, HTML and Wireshark all print strings made here). Rates are in
//! bit/s with decimal prefixes, as link speeds are quoted; buffer sizes keep exact bytes
//! because the sysctls that set them take bytes.

/// Thousands separators: 80480 → "80,480".
pub fn grouped(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if n < 0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Three significant digits below 100, whole numbers above: 4.56, 45.6, 456.
fn sig3(x: f64) -> String {
    if x.abs() >= 100.0 {
        return format!("{x:.0}");
    }
    if x == 0.0 {
        return "0".into();
    }
    let decimals = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    let s = format!("{x:.decimals$}");
    // As %g: no trailing zeros after the point.
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Exact bytes: "80,480 B".
pub fn bytes(n: u64) -> String {
    format!("{} B", grouped(n.min(i64::MAX as u64) as i64))
}

/// Rounded bytes, decimal as tshark's statistics: "2.4 MB".
pub fn size(n: f64) -> String {
    for (unit, scale) in [("GB", 1e9), ("MB", 1e6), ("kB", 1e3)] {
        if n >= scale {
            return format!("{} {unit}", sig3(n / scale));
        }
    }
    format!("{n:.0} B")
}

/// bit/s → "15.7 Mbit/s".
pub fn rate(bps: f64) -> String {
    for (unit, scale) in [("Gbit/s", 1e9), ("Mbit/s", 1e6), ("kbit/s", 1e3)] {
        if bps >= scale {
            return format!("{} {unit}", sig3(bps / scale));
        }
    }
    format!("{bps:.0} bit/s")
}

/// Milliseconds → "40.1 ms".
pub fn ms(x: f64) -> String {
    format!("{} ms", sig3(x))
}

/// Seconds → "3.1 s".
pub fn seconds(x: f64) -> String {
    format!("{} s", sig3(x))
}

/// A fraction (0..1) as a percentage with the precision its size deserves: "95%", "3.2%",
/// "0.52%".
pub fn percent(fraction: f64) -> String {
    let p = 100.0 * fraction;
    if p.abs() >= 10.0 || p == 0.0 {
        format!("{p:.0}%")
    } else if p.abs() >= 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.2}%")
    }
}

/// A plain decimal: one decimal below 1,000, grouped whole numbers above ("1.5", "2,048").
pub fn number(x: f64) -> String {
    if x.abs() < 1000.0 {
        format!("{x:.1}")
    } else {
        grouped(x.round() as i64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_an_engineer_writes_them() {
        assert_eq!(grouped(80_480), "80,480");
        assert_eq!(grouped(-1_234_567), "-1,234,567");
        assert_eq!(bytes(65_535), "65,535 B");
        assert_eq!(size(2_412_000.0), "2.41 MB");
        assert_eq!(size(999.0), "999 B");
        assert_eq!(rate(15_700_000.0), "15.7 Mbit/s");
        assert_eq!(rate(250e6), "250 Mbit/s");
        assert_eq!(rate(1e9), "1 Gbit/s");
        assert_eq!(ms(40.06), "40.1 ms");
        assert_eq!(ms(0.046), "0.046 ms");
        assert_eq!(ms(178.4), "178 ms");
        assert_eq!(percent(0.953), "95%");
        assert_eq!(percent(0.032), "3.2%");
        assert_eq!(percent(0.0052), "0.52%");
        assert_eq!(number(2048.4), "2,048");
    }
}
