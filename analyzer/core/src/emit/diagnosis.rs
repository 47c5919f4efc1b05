//! The diagnosis tables built as flows are judged: each verdict becomes its rows of the
//! flows table's verdict columns and of the findings table within a few thousand flows,
//! and is dropped. At the end the rows are put in stream order. A capture of a million
//! flows so holds its tables once, never the verdicts beside them.

use arrow_array::{new_empty_array, Array, ArrayRef, RecordBatch};
use arrow_schema::ArrowError;
use arrow_select::interleave::interleave;

use super::columns::batch;
use super::flows_table::{findings_columns, flow_columns, verdict_columns};
use super::schema::{self, Column, FINDING, FLOW, VERDICT};
use crate::analyse::verdict::{judge, FlowVerdict, JudgeOptions};
use crate::analyse::{FlowState, VerdictStore};
use crate::flow::FlowSummary;

/// Verdicts rendered into columns at once.
const CHUNK: usize = 4096;

/// Where one verdict's rows are: its chunk, its row there, its findings' rows.
#[derive(Clone, Copy)]
struct Rows {
    chunk: u32,
    row: u32,
    findings: (u32, u32),
    data_bytes: u64,
}

pub struct Diagnosis {
    opts: JudgeOptions,
    pending: Vec<(u32, FlowVerdict)>,
    /// Per chunk: the verdict columns and the findings columns.
    verdict_chunks: Vec<Vec<ArrayRef>>,
    finding_chunks: Vec<Vec<ArrayRef>>,
    /// Per stream: the rows of its kept verdict (the episode with the most data).
    best: Vec<Option<Rows>>,
}

impl VerdictStore for Diagnosis {
    fn keep(&mut self, stream: u32, v: FlowVerdict) {
        self.pending.push((stream, v));
        if self.pending.len() >= CHUNK {
            self.flush();
        }
    }
}

impl Diagnosis {
    pub fn new(opts: JudgeOptions) -> Diagnosis {
        Diagnosis {
            opts,
            pending: Vec::new(),
            verdict_chunks: Vec::new(),
            finding_chunks: Vec::new(),
            best: Vec::new(),
        }
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let chunk = self.verdict_chunks.len() as u32;
        let (streams, verdicts): (Vec<u32>, Vec<FlowVerdict>) = std::mem::take(&mut self.pending).into_iter().unzip();
        let mut finding_row = 0u32;
        for (row, (&s, v)) in streams.iter().zip(&verdicts).enumerate() {
            let n = v.findings.len() as u32;
            let rows = Rows { chunk, row: row as u32, findings: (finding_row, n), data_bytes: v.data_bytes };
            finding_row += n;
            let i = s as usize;
            if i >= self.best.len() {
                self.best.resize(i + 1, None);
            }
            if self.best[i].is_none_or(|b| v.data_bytes > b.data_bytes) {
                self.best[i] = Some(rows);
            }
        }
        self.verdict_chunks.push(verdict_columns(&verdicts));
        self.finding_chunks.push(findings_columns(&streams, &verdicts));
    }

    /// The flows table with its verdict columns, and the findings table, in stream order.
    /// Flows never judged (seen only in ICMP errors) get the verdict of an empty state.
    pub fn finish(mut self, flows: &[FlowSummary]) -> Result<(RecordBatch, RecordBatch), ArrowError> {
        let empty = FlowState::default();
        for f in flows {
            if self.best.get(f.stream as usize).is_none_or(|b| b.is_none()) {
                let v = judge(&empty, f, self.opts);
                self.keep(f.stream, v);
            }
        }
        self.flush();
        let order: Vec<Rows> = flows.iter().map(|f| self.best[f.stream as usize].unwrap()).collect();
        let verdict_rows: Vec<(usize, usize)> = order.iter().map(|r| (r.chunk as usize, r.row as usize)).collect();
        let finding_rows: Vec<(usize, usize)> = order
            .iter()
            .flat_map(|r| (r.findings.0..r.findings.0 + r.findings.1).map(move |i| (r.chunk as usize, i as usize)))
            .collect();
        let mut columns = flow_columns(flows);
        columns.extend(gather(&mut self.verdict_chunks, &verdict_rows, VERDICT)?);
        let flows_batch = batch(schema::schema(&[FLOW, VERDICT]), columns)?;
        let findings = gather(&mut self.finding_chunks, &finding_rows, FINDING)?;
        Ok((flows_batch, batch(schema::schema(&[FINDING]), findings)?))
    }
}

/// Column by column, the rows `at` (chunk, row) of the chunks; each column of the chunks
/// is freed once gathered.
fn gather(chunks: &mut [Vec<ArrayRef>], at: &[(usize, usize)], columns: &[Column]) -> Result<Vec<ArrayRef>, ArrowError> {
    let mut out = Vec::with_capacity(columns.len());
    for (c, col) in columns.iter().enumerate() {
        let sources: Vec<ArrayRef> = chunks
            .iter_mut()
            .map(|ch| {
                let empty = new_empty_array(ch[c].data_type());
                std::mem::replace(&mut ch[c], empty)
            })
            .collect();
        let refs: Vec<&dyn Array> = sources.iter().map(|a| a.as_ref()).collect();
        out.push(if refs.is_empty() { new_empty_array(&col.kind.data_type()) } else { interleave(&refs, at)? });
    }
    Ok(out)
}
