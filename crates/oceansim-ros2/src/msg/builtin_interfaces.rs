//! `builtin_interfaces`: time.

use crate::message::ros_message;

ros_message! {
    /// `builtin_interfaces/msg/Time`: a point in time, seconds and
    /// nanoseconds (ROS time: since the Unix epoch, or simulated time when
    /// `use_sim_time` is set).
    Time = "builtin_interfaces/msg/Time" {
        /// Whole seconds (s, default 0).
        sec: i32,
        /// Nanoseconds past `sec`, in `0..1_000_000_000` (ns, default 0).
        nanosec: u32,
    }
}

const NANOS_PER_SEC: i64 = 1_000_000_000;

impl Time {
    /// The time `nanos` nanoseconds after the epoch; `sec` saturates at the
    /// `i32` range.
    pub fn from_nanos(nanos: i64) -> Self {
        let sec = nanos.div_euclid(NANOS_PER_SEC);
        Time {
            sec: sec.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32,
            // rem_euclid is in 0..1e9, which fits a u32.
            nanosec: nanos.rem_euclid(NANOS_PER_SEC) as u32,
        }
    }

    /// The time `seconds` after the epoch, rounded to the nanosecond.
    pub fn from_secs_f64(seconds: f64) -> Self {
        Self::from_nanos((seconds * 1e9).round() as i64)
    }

    /// Nanoseconds since the epoch.
    pub fn as_nanos(&self) -> i64 {
        i64::from(self.sec) * NANOS_PER_SEC + i64::from(self.nanosec)
    }

    /// Seconds since the epoch.
    pub fn as_secs_f64(&self) -> f64 {
        f64::from(self.sec) + f64::from(self.nanosec) * 1e-9
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_conversions() {
        let t = Time::from_secs_f64(12.5);
        assert_eq!((t.sec, t.nanosec), (12, 500_000_000));
        assert_eq!(t.as_nanos(), 12_500_000_000);
        let t = Time::from_nanos(-1);
        assert_eq!((t.sec, t.nanosec), (-1, 999_999_999));
        assert_eq!(t.as_nanos(), -1);
        assert_eq!(Time::from_nanos(i64::MAX).sec, i32::MAX);
    }
}
