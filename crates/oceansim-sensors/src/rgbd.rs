//! RGB-D camera: the camera's rendering (RGB and depth images) and a
//! coloured point cloud back-projected from its depth image.

use super::camera::Optics;
use super::{r4, Family, Intrinsics, Noise, Reading, RgbdReading, SampleCtx, SensorModel};
use nalgebra::Vector3;
use oceansim_vehicles::CameraParams;

/// Points the payload's cloud carries at most; the depth image is
/// subsampled by a stride to stay under it (the full cloud is the depth
/// PNG back-projected with the intrinsics).
pub const MAX_CLOUD_POINTS: usize = 1200;

/// The RGB-D model (5 Hz, σ = 1 cm on depth).
#[derive(Debug, Clone)]
pub struct Rgbd {
    optics: Optics,
    stride: usize,
}

impl Rgbd {
    /// An RGB-D camera of `params`.
    pub fn new(params: CameraParams) -> Self {
        let (w, h) = (params.width_px as usize, params.height_px as usize);
        // The smallest stride whose grid of samples stays under the cap
        // (⌈w/s⌉·⌈h/s⌉, not w·h/s², for thin images).
        let mut stride = 1;
        while w.div_ceil(stride) * h.div_ceil(stride) > MAX_CLOUD_POINTS {
            stride += 1;
        }
        Rgbd {
            optics: Optics::new(params),
            stride,
        }
    }
}

impl SensorModel for Rgbd {
    fn family(&self) -> Family {
        Family::RgbdDenseCloud
    }
    fn rate_hz(&self) -> f64 {
        5.0
    }
    fn sigma(&self) -> f64 {
        0.01
    }
    fn on_demand(&self) -> bool {
        true
    }
    fn detached(&self) -> Option<Box<dyn SensorModel>> {
        Some(Box::new(self.clone()))
    }
    fn sample(&mut self, ctx: &SampleCtx<'_>, rng: &mut Noise) -> Reading {
        let o = &self.optics;
        let (w, h) = (o.params.width_px as usize, o.params.height_px as usize);
        let frame = o.render(ctx, self.sigma(), rng);
        let (origin, to_world) = ctx.pose();
        let Intrinsics { fx, fy, cx, cy } = o.intrinsics;
        let (mut points, mut points_world, mut colors_rgb) = (Vec::new(), Vec::new(), Vec::new());
        for v in (0..h).step_by(self.stride) {
            for u in (0..w).step_by(self.stride) {
                let k = v * w + u;
                let mm = frame.depth_mm[k];
                if mm == 0 {
                    continue;
                }
                let z = f64::from(mm) * 1e-3;
                let p = Vector3::new(z, z * (u as f64 - cx) / fx, z * (v as f64 - cy) / fy);
                let q = origin + to_world(&p);
                points.push([r4(p.x), r4(p.y), r4(p.z)]);
                points_world.push([r4(q.x), r4(q.y), r4(q.z)]);
                colors_rgb.push([frame.rgb[3 * k], frame.rgb[3 * k + 1], frame.rgb[3 * k + 2]]);
            }
        }
        let [rgb, depth, _] = frame.pngs(&o.params);
        Reading::Rgbd(RgbdReading {
            width: w,
            height: h,
            intrinsics: o.intrinsics.clone(),
            cloud_stride: self.stride,
            point_count: points.len(),
            points,
            points_world,
            colors_rgb,
            encoding: super::PNG_BASE64,
            rgb_png_base64: rgb,
            depth_png_base64: depth,
            depth_unit_m: 0.001,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::fixture;
    use super::*;

    #[test]
    fn points_lie_on_the_wall_in_the_world_frame() {
        let (s, _) = fixture::sample(Family::RgbdDenseCloud, None, &fixture::state());
        let Reading::Rgbd(r) = s.reading else {
            panic!()
        };
        assert_eq!(r.point_count, r.points_world.len());
        assert_eq!(r.point_count, r.colors_rgb.len());
        // 160 x 120 px at stride 4: 40 x 30 samples, all on the wall or
        // the seabed below it.
        assert_eq!(r.cloud_stride, 4);
        assert!(r.point_count > 600, "{}", r.point_count);
        let on_wall: Vec<_> = r.points_world.iter().filter(|p| p[2] > -10.0).collect();
        assert!(on_wall.len() > 300, "{} points on the wall", on_wall.len());
        for p in on_wall {
            assert!((p[1] - 10.0).abs() < 0.06, "wall face at y = 10: {p:?}");
        }
    }
}
