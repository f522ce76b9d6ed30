//! Small linear-algebra helpers over batches of vectors.

use crate::error::{MathError, Result};
use nalgebra::{DMatrix, DVector, Matrix2};

/// 2-D rotation by `angle` (rad), counter-clockwise on column vectors:
/// [[cos, −sin], [sin, cos]].
pub fn r_2d_matrix(angle: f64) -> Matrix2<f64> {
    let (s, c) = angle.sin_cos();
    Matrix2::new(c, -s, s, c)
}

/// Normalises each 2-D vector; vectors with norm ≤ `delta` become exactly
/// zero (so the zero vector maps to zero, never NaN).
pub fn unit_vec(v: &[[f64; 2]], delta: f64) -> Vec<[f64; 2]> {
    v.iter()
        .map(|&[x, y]| {
            let n = x.hypot(y);
            if n > delta && n > 0.0 {
                [x / n, y / n]
            } else {
                [0.0, 0.0]
            }
        })
        .collect()
}

/// Q applied to each row of X (N×D): returns rows Q xᵢ, i.e. X Qᵀ.
pub fn q_prod_xi(q: &DMatrix<f64>, x: &DMatrix<f64>) -> Result<DMatrix<f64>> {
    if q.nrows() != q.ncols() || q.ncols() != x.ncols() {
        return Err(MathError::Shape {
            name: "Q".into(),
            expected: format!("({0}, {0})", x.ncols()),
            got: format!("({}, {})", q.nrows(), q.ncols()),
        });
    }
    Ok(x * q.transpose())
}

/// Signed angle from each Aᵢ to Bᵢ, atan2(Aᵢ × Bᵢ, Aᵢ · Bᵢ) in (−π, π],
/// counter-clockwise positive.
pub fn angle_of_vectors(a: &[[f64; 2]], b: &[[f64; 2]]) -> Result<Vec<f64>> {
    if a.len() != b.len() {
        return Err(MathError::Shape {
            name: "B".into(),
            expected: format!("({}, 2)", a.len()),
            got: format!("({}, 2)", b.len()),
        });
    }
    Ok(a.iter()
        .zip(b)
        .map(|(a, b)| (a[0] * b[1] - a[1] * b[0]).atan2(a[0] * b[0] + a[1] * b[1]))
        .collect())
}

/// Covariance of N samples (rows of X, N×D): population (÷N) or sample
/// (÷(N−1)).
pub fn cov_matrix(x: &DMatrix<f64>, sample: bool) -> Result<DMatrix<f64>> {
    let n = x.nrows();
    let denom = if sample { n.saturating_sub(1) } else { n };
    if denom == 0 {
        return Err(MathError::Invalid(format!(
            "cov_matrix needs at least {} samples, got {n}",
            if sample { 2 } else { 1 }
        )));
    }
    let mean = x.row_mean();
    let centred = DMatrix::from_fn(n, x.ncols(), |i, j| x[(i, j)] - mean[j]);
    Ok(centred.transpose() * &centred / denom as f64)
}

/// [`cov_matrix`] of K datasets.
pub fn cov_matrix_batched(xs: &[DMatrix<f64>], sample: bool) -> Result<Vec<DMatrix<f64>>> {
    xs.iter().map(|x| cov_matrix(x, sample)).collect()
}

/// Spectral norm (largest singular value).
pub fn norm_2(a: &DMatrix<f64>) -> f64 {
    a.clone()
        .singular_values()
        .iter()
        .copied()
        .fold(0.0, f64::max)
}

/// exp((xᵢ − x0)ᵀ Q (xᵢ − x0)) for each row of X (N×D).
pub fn exp_quadratic(x: &DMatrix<f64>, q: &DMatrix<f64>, x0: &[f64]) -> Result<Vec<f64>> {
    let d = x.ncols();
    if q.nrows() != d || q.ncols() != d || x0.len() != d {
        return Err(MathError::Shape {
            name: "Q, x0".into(),
            expected: format!("({d}, {d}) and ({d},)"),
            got: format!("({}, {}) and ({},)", q.nrows(), q.ncols(), x0.len()),
        });
    }
    let x0 = DVector::from_column_slice(x0);
    Ok((0..x.nrows())
        .map(|i| {
            let r = x.row(i).transpose() - &x0;
            (r.transpose() * q * &r)[(0, 0)].exp()
        })
        .collect())
}

/// One expected axis length in [`check_shape`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dim {
    /// Any length.
    Any,
    /// Exactly this length.
    Is(usize),
    /// One of these lengths.
    OneOf(Vec<usize>),
}

/// Checks an array shape against an expected pattern (the
/// `check_and_parse_dimensions` of ssl_simulator), e.g.
/// `check_shape("P", &[10, 2], &[Dim::Any, Dim::OneOf(vec![2, 3])])`.
pub fn check_shape(name: &str, shape: &[usize], expected: &[Dim]) -> Result<()> {
    let ok = shape.len() == expected.len()
        && shape.iter().zip(expected).all(|(s, e)| match e {
            Dim::Any => true,
            Dim::Is(n) => s == n,
            Dim::OneOf(v) => v.contains(s),
        });
    if ok {
        return Ok(());
    }
    let pat: Vec<String> = expected
        .iter()
        .map(|e| match e {
            Dim::Any => "*".into(),
            Dim::Is(n) => n.to_string(),
            Dim::OneOf(v) => v.iter().map(usize::to_string).collect::<Vec<_>>().join("|"),
        })
        .collect();
    let got: Vec<String> = shape.iter().map(usize::to_string).collect();
    Err(MathError::Shape {
        name: name.into(),
        expected: format!("({})", pat.join(", ")),
        got: format!("({})", got.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shape_checks() {
        assert!(check_shape("P", &[10, 2], &[Dim::Any, Dim::OneOf(vec![2, 3])]).is_ok());
        let e = check_shape("P", &[10, 4], &[Dim::Any, Dim::Is(2)]).unwrap_err();
        assert_eq!(e.to_string(), "P: expected shape (*, 2), got (10, 4)");
        assert!(check_shape("P", &[10], &[Dim::Any, Dim::Is(2)]).is_err());
    }

    #[test]
    fn q_prod_and_exp() {
        let x = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 3.0, 4.0]);
        let q = DMatrix::from_row_slice(2, 2, &[2.0, 0.0, 0.0, 2.0]);
        assert_eq!(q_prod_xi(&q, &x).unwrap(), x.clone() * 2.0);
        let e = exp_quadratic(&x, &(-q), &[1.0, 2.0]).unwrap();
        assert_eq!(e[0], 1.0);
        assert!((e[1] - (-2.0f64 * 8.0).exp()).abs() < 1e-15);
        assert!(
            (norm_2(&DMatrix::from_row_slice(2, 2, &[3.0, 0.0, 0.0, -5.0])) - 5.0).abs() < 1e-12
        );
    }
}
