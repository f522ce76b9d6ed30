//! Splitting per-entity loops across threads.
//!
//! With the `parallel` feature, arrays of at least [`PAR_THRESHOLD`]
//! entities are cut into fixed-size chunks of rows that rayon processes on
//! all cores. Each element is computed by the same code whichever thread
//! runs it, and no reduction crosses chunks, so results are bit-identical to
//! the serial run.

/// Entities from which loops go parallel.
pub const PAR_THRESHOLD: usize = 32_768;
/// Rows per parallel chunk.
pub const PAR_CHUNK: usize = 8_192;

/// Calls `f(first_entity, rows)` over `out` (N rows of `stride` values),
/// in parallel chunks when N is large. Inputs read inside `f` must be plain
/// slices (`let x: &[f64] = &world.read(h);`), not the borrow guards.
pub fn par_rows_mut<F>(out: &mut [f64], stride: usize, f: F)
where
    F: Fn(usize, &mut [f64]) + Send + Sync,
{
    let stride = stride.max(1);
    let n = out.len() / stride;
    #[cfg(feature = "parallel")]
    {
        if n >= PAR_THRESHOLD {
            use rayon::prelude::*;
            out.par_chunks_mut(PAR_CHUNK * stride)
                .enumerate()
                .for_each(|(c, rows)| f(c * PAR_CHUNK, rows));
            return;
        }
    }
    let _ = n;
    f(0, out)
}

/// Whether loops over `n` entities run in parallel in this build.
pub fn is_parallel(n: usize) -> bool {
    cfg!(feature = "parallel") && n >= PAR_THRESHOLD
}
