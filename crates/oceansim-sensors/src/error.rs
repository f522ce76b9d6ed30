//! The crate's error type.

/// Errors of the sensor models' data: an image whose pixels do not fill
/// its size, or a PNG that cannot be read. The codes are the simulator's
/// (`oceansim_sim::SimError` carries these unchanged).
#[derive(Debug, thiserror::Error)]
pub enum SensorError {
    /// An image that cannot be encoded (its pixels do not fill its size)
    /// or decoded (not one of the PNGs the payloads carry).
    #[error("image: {0}")]
    Image(String),
}

impl SensorError {
    /// A stable machine-readable code: `image`.
    pub fn code(&self) -> &'static str {
        match self {
            SensorError::Image(_) => "image",
        }
    }
}

/// Result with the sensors' error.
pub type Result<T, E = SensorError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use crate::image::{Image, Pixels};

    #[test]
    fn an_image_its_pixels_do_not_fill_is_refused_with_its_code() {
        let e = Image::new(4, 4, Pixels::Gray8(vec![0; 15])).unwrap_err();
        assert_eq!(e.code(), "image");
        assert!(e.to_string().starts_with("image: 15 samples"), "{e}");
        let e = Image::from_png_base64("bm90IGEgcG5n").unwrap_err();
        assert_eq!(e.code(), "image");
    }
}
