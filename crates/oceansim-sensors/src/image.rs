//! Raster images and their PNG encoding: camera frames in sensor payloads
//! (as base64 text), the sensor gallery and dataset exports.
//!
//! Rows run top to bottom, pixels left to right; 16-bit samples are
//! written big-endian, as PNG stores them.

use crate::error::{Result, SensorError};
use base64::Engine as _;

/// The pixels of an image, row-major.
#[derive(Debug, Clone, PartialEq)]
pub enum Pixels {
    /// One 8-bit sample per pixel.
    Gray8(Vec<u8>),
    /// One 16-bit sample per pixel (e.g. depth in mm).
    Gray16(Vec<u16>),
    /// Three 8-bit samples per pixel, red first.
    Rgb8(Vec<u8>),
}

/// A raster image.
#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    /// Columns (px).
    pub width: u32,
    /// Rows (px).
    pub height: u32,
    /// The samples.
    pub pixels: Pixels,
}

impl Image {
    /// An image of `width × height` px; an error unless `pixels` fills it
    /// exactly and it is not empty.
    pub fn new(width: u32, height: u32, pixels: Pixels) -> Result<Image> {
        let n = width as usize * height as usize;
        let (len, per) = match &pixels {
            Pixels::Gray8(v) => (v.len(), 1),
            Pixels::Gray16(v) => (v.len(), 1),
            Pixels::Rgb8(v) => (v.len(), 3),
        };
        if n == 0 || len != n * per {
            return Err(SensorError::Image(format!(
                "{len} samples do not fill {width} x {height} px at {per} per pixel"
            )));
        }
        Ok(Image {
            width,
            height,
            pixels,
        })
    }

    /// The image as a PNG file (fast compression: these are written while
    /// the simulation runs).
    pub fn to_png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width, self.height);
        let wide;
        let (color, depth, bytes): (_, _, &[u8]) = match &self.pixels {
            Pixels::Gray8(v) => (png::ColorType::Grayscale, png::BitDepth::Eight, v),
            Pixels::Rgb8(v) => (png::ColorType::Rgb, png::BitDepth::Eight, v),
            Pixels::Gray16(v) => {
                wide = v.iter().flat_map(|x| x.to_be_bytes()).collect::<Vec<u8>>();
                (png::ColorType::Grayscale, png::BitDepth::Sixteen, &wide)
            }
        };
        enc.set_color(color);
        enc.set_depth(depth);
        enc.set_compression(png::Compression::Fast);
        // `Image::new` checked the size, so the encoder has nothing to
        // refuse; should it, the caller gets an empty file, not a panic.
        let written = enc
            .write_header()
            .and_then(|mut w| w.write_image_data(bytes).and_then(|()| w.finish()));
        if written.is_err() {
            return Vec::new();
        }
        out
    }

    /// The PNG file as standard base64 text (RFC 4648, with padding).
    pub fn to_png_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.to_png())
    }
}

impl Image {
    /// The image a base64 PNG written by [`Image::to_png_base64`] holds
    /// (8-bit gray, 16-bit gray or 8-bit RGB); an error for anything else
    /// or a damaged file.
    pub fn from_png_base64(text: &str) -> Result<Image> {
        let raw = RawImage::from_png_base64(text)?;
        let pixels = match raw.kind {
            RawKind::Gray8 => Pixels::Gray8(raw.data),
            RawKind::Rgb8 => Pixels::Rgb8(raw.data),
            RawKind::Gray16Le => Pixels::Gray16(
                raw.data
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]]))
                    .collect(),
            ),
        };
        Image::new(raw.width, raw.height, pixels)
    }
}

/// The layout of a [`RawImage`]'s samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawKind {
    /// One 8-bit sample per pixel.
    Gray8,
    /// One 16-bit sample per pixel, little-endian.
    Gray16Le,
    /// Three 8-bit samples per pixel, red first.
    Rgb8,
}

/// A decoded image as the bytes a raw image message carries (row-major,
/// rows packed), for the exports: no second copy into [`Pixels`].
#[derive(Debug, Clone, PartialEq)]
pub struct RawImage {
    /// Columns (px).
    pub width: u32,
    /// Rows (px).
    pub height: u32,
    /// The samples' layout.
    pub kind: RawKind,
    /// The samples, `width × height × bytes per pixel` bytes.
    pub data: Vec<u8>,
}

impl RawImage {
    /// The image a base64 PNG written by [`Image::to_png_base64`] holds,
    /// 16-bit samples turned little-endian in place; an error for any
    /// other kind of PNG or a damaged file.
    pub fn from_png_base64(text: &str) -> Result<RawImage> {
        let bad = |e: &dyn std::fmt::Display| SensorError::Image(format!("not a PNG: {e}"));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(|e| bad(&e))?;
        let mut r = png::Decoder::new(std::io::Cursor::new(bytes))
            .read_info()
            .map_err(|e| bad(&e))?;
        let size = r.output_buffer_size().ok_or_else(|| bad(&"too large"))?;
        let mut data = vec![0; size];
        let info = r.next_frame(&mut data).map_err(|e| bad(&e))?;
        data.truncate(info.buffer_size());
        let kind = match (info.color_type, info.bit_depth) {
            (png::ColorType::Grayscale, png::BitDepth::Eight) => RawKind::Gray8,
            (png::ColorType::Rgb, png::BitDepth::Eight) => RawKind::Rgb8,
            (png::ColorType::Grayscale, png::BitDepth::Sixteen) => {
                // PNG stores them big-endian.
                for b in data.chunks_exact_mut(2) {
                    b.swap(0, 1);
                }
                RawKind::Gray16Le
            }
            (c, d) => return Err(bad(&format!("{c:?} at {d:?} is not one of ours"))),
        };
        let per = match kind {
            RawKind::Gray8 => 1,
            RawKind::Gray16Le => 2,
            RawKind::Rgb8 => 3,
        };
        let (width, height) = (info.width, info.height);
        if width == 0 || data.len() != width as usize * height as usize * per {
            return Err(bad(&format!("{width} x {height} px do not fit its rows")));
        }
        Ok(RawImage {
            width,
            height,
            kind,
            data,
        })
    }
}

/// Decodes a PNG back to (width, height, color, depth, bytes), for the
/// tests of everything that writes one.
#[cfg(test)]
pub(crate) fn decode_png(bytes: &[u8]) -> (u32, u32, png::ColorType, png::BitDepth, Vec<u8>) {
    let mut r = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (
        info.width,
        info.height,
        info.color_type,
        info.bit_depth,
        buf,
    )
}

#[cfg(test)]
mod tests {
    use super::decode_png as decode;
    use super::*;

    #[test]
    fn every_kind_round_trips_through_png() {
        let rgb: Vec<u8> = (0..4 * 3 * 3).map(|i| i as u8 * 7).collect();
        let img = Image::new(4, 3, Pixels::Rgb8(rgb.clone())).unwrap();
        let (w, h, c, d, back) = decode(&img.to_png());
        assert_eq!(
            (w, h, c, d),
            (4, 3, png::ColorType::Rgb, png::BitDepth::Eight)
        );
        assert_eq!(back, rgb);

        let depth: Vec<u16> = vec![0, 1, 256, 65535, 10_000, 42];
        let img = Image::new(3, 2, Pixels::Gray16(depth.clone())).unwrap();
        let (_, _, c, d, back) = decode(&img.to_png());
        assert_eq!((c, d), (png::ColorType::Grayscale, png::BitDepth::Sixteen));
        let words: Vec<u16> = back
            .chunks(2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .collect();
        assert_eq!(words, depth);

        let text = Image::new(1, 1, Pixels::Gray8(vec![9]))
            .unwrap()
            .to_png_base64();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .unwrap();
        assert_eq!(decode(&bytes).4, vec![9]);
    }

    #[test]
    fn raw_images_hold_the_samples_with_16_bits_little_endian() {
        let depth: Vec<u16> = vec![0, 1, 256, 65535, 10_000, 42];
        let img = Image::new(3, 2, Pixels::Gray16(depth.clone())).unwrap();
        let raw = RawImage::from_png_base64(&img.to_png_base64()).unwrap();
        let le: Vec<u8> = depth.iter().flat_map(|x| x.to_le_bytes()).collect();
        assert_eq!((raw.width, raw.height, raw.kind), (3, 2, RawKind::Gray16Le));
        assert_eq!(raw.data, le);
        let rgb: Vec<u8> = (0..2 * 2 * 3).map(|i| i as u8 * 11).collect();
        let img = Image::new(2, 2, Pixels::Rgb8(rgb.clone())).unwrap();
        let raw = RawImage::from_png_base64(&img.to_png_base64()).unwrap();
        assert_eq!((raw.kind, raw.data), (RawKind::Rgb8, rgb));
        assert!(RawImage::from_png_base64("bm90IGEgcG5n").is_err());
    }

    #[test]
    fn pixels_that_do_not_fill_the_size_are_refused() {
        let e = Image::new(2, 2, Pixels::Rgb8(vec![0; 11])).unwrap_err();
        assert_eq!(e.code(), "image");
        assert!(Image::new(0, 5, Pixels::Gray8(vec![])).is_err());
    }
}
