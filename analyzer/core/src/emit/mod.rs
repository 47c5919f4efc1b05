//! ⑤ emit: columnar tables (packets, flows) for Python and CSV.
