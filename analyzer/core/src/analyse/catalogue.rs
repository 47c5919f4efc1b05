//! Finding ids (generated from catalogue/findings.toml by tools/gen_catalogue.py — do not edit).

pub const FINDING_IDS: &[&str] = &["retransmission", "spurious_retransmission", "dsack", "reordering", "lost_segment", "duplicate_ack", "zero_window", "zero_window_probe", "window_full", "window_scale_inferred", "rwnd_limited", "rwnd_static", "wscale_missing", "zero_window_stall", "sndbuf_limited", "app_limited", "reorder_limited", "loss_limited", "slow_start_overshoot", "bandwidth_limited", "not_limited"];
