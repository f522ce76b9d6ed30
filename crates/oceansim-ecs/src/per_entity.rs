//! The non-vectorised fallback: apply a per-entity function over the
//! leading axis and stack the results.

use crate::error::{EcsError, Result};

/// Applies `f` to each entity's slice of every input and stacks the outputs.
///
/// `inputs` are (data, stride) pairs of arrays with N rows each; `f`
/// receives the i-th row of each input and fills that entity's
/// `out_stride` output values. Returns the stacked (N, out_stride) array,
/// ready to copy back into a component. Prefer a batched operation where
/// one exists; this is for math that only has a single-entity form.
///
/// ```
/// use oceansim_ecs::map_entities;
/// let p = [1.0, 2.0, 3.0, 4.0]; // (2, 2)
/// let s = [10.0, 20.0];         // (2,)
/// let out = map_entities(&[(&p, 2), (&s, 1)], 1, |rows, out| {
///     out[0] = rows[1][0] * (rows[0][0] + rows[0][1]);
/// })
/// .unwrap();
/// assert_eq!(out, vec![30.0, 140.0]);
/// ```
pub fn map_entities<F>(inputs: &[(&[f64], usize)], out_stride: usize, mut f: F) -> Result<Vec<f64>>
where
    F: FnMut(&[&[f64]], &mut [f64]),
{
    let Some(&(first, s0)) = inputs.first() else {
        return Err(EcsError::Invalid(
            "map_entities needs at least one input".into(),
        ));
    };
    let s0 = s0.max(1);
    let n = first.len() / s0;
    for (k, &(data, stride)) in inputs.iter().enumerate() {
        if stride == 0 || data.len() != n * stride {
            return Err(EcsError::Shape {
                name: format!("input {k}"),
                expected: format!("{n} rows of {stride} values"),
                got: format!("{} values", data.len()),
            });
        }
    }
    let mut out = vec![0.0; n * out_stride];
    let mut rows: Vec<&[f64]> = Vec::with_capacity(inputs.len());
    for i in 0..n {
        rows.clear();
        rows.extend(inputs.iter().map(|&(d, s)| &d[i * s..(i + 1) * s]));
        f(&rows, &mut out[i * out_stride..(i + 1) * out_stride]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_must_agree() {
        let e = map_entities(&[(&[1.0, 2.0, 3.0], 1), (&[1.0, 2.0], 1)], 1, |_, _| {}).unwrap_err();
        assert_eq!(e.code(), "shape_mismatch");
        assert!(map_entities(&[], 1, |_, _| {}).is_err());
    }

    #[test]
    fn stacks_per_entity_results() {
        let r = [0.0, 1.0, 2.0];
        let out = map_entities(&[(&r, 1)], 2, |rows, out| {
            out[0] = rows[0][0];
            out[1] = rows[0][0] * 2.0;
        })
        .unwrap();
        assert_eq!(out, vec![0.0, 0.0, 1.0, 2.0, 2.0, 4.0]);
    }
}
