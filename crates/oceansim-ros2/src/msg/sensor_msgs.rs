//! `sensor_msgs`: IMU, pressure, cameras, point clouds, scans and ranges.
//!
//! Frames follow REP-103; cameras use the optical frame (z forward, x right,
//! y down). A covariance whose first element is -1 marks the quantity as
//! not measured; all zeros means unknown.

use super::geometry_msgs::{Quaternion, Vector3};
use super::std_msgs::Header;
use crate::message::ros_message;

ros_message! {
    /// `sensor_msgs/msg/Imu`: orientation, angular velocity and linear
    /// acceleration, each with a 3×3 row-major covariance.
    Imu = "sensor_msgs/msg/Imu" {
        /// Stamp, and the IMU's frame.
        header: Header,
        /// Orientation of the IMU frame in the world (default identity).
        orientation: Quaternion,
        /// Covariance about x, y, z (rad²; default 0).
        orientation_covariance: [f64; 9],
        /// Angular velocity in the IMU frame (rad/s).
        angular_velocity: Vector3,
        /// Covariance (rad²/s²; default 0).
        angular_velocity_covariance: [f64; 9],
        /// Linear acceleration in the IMU frame, gravity included (m/s²).
        linear_acceleration: Vector3,
        /// Covariance (m²/s⁴; default 0).
        linear_acceleration_covariance: [f64; 9],
    }
}

ros_message! {
    /// `sensor_msgs/msg/FluidPressure`: absolute pressure (a depth sensor).
    FluidPressure = "sensor_msgs/msg/FluidPressure" {
        /// Stamp, and the sensor's frame.
        header: Header,
        /// Absolute pressure (Pa, default 0).
        fluid_pressure: f64,
        /// Variance (Pa²; 0 is unknown).
        variance: f64,
    }
}

ros_message! {
    /// `sensor_msgs/msg/Image`: an uncompressed image, row-major.
    Image = "sensor_msgs/msg/Image" {
        /// Acquisition time, and the camera's optical frame.
        header: Header,
        /// Rows (px).
        height: u32,
        /// Columns (px).
        width: u32,
        /// Pixel encoding (`"rgb8"`, `"mono8"`, `"32FC1"`, …).
        encoding: String,
        /// 1 if multi-byte pixels are big endian.
        is_bigendian: u8,
        /// Bytes per row.
        step: u32,
        /// Pixels, `step * height` bytes.
        data: Vec<u8>,
    }
}

ros_message! {
    /// `sensor_msgs/msg/CompressedImage`: a JPEG or PNG image.
    CompressedImage = "sensor_msgs/msg/CompressedImage" {
        /// Acquisition time, and the camera's optical frame.
        header: Header,
        /// `"jpeg"` or `"png"` (image_transport also writes `"rgb8; jpeg
        /// compressed bgr8"`).
        format: String,
        /// The compressed bytes.
        data: Vec<u8>,
    }
}

ros_message! {
    /// `sensor_msgs/msg/RegionOfInterest`: a window of an image.
    RegionOfInterest = "sensor_msgs/msg/RegionOfInterest" {
        /// Leftmost column (px).
        x_offset: u32,
        /// Topmost row (px).
        y_offset: u32,
        /// Rows (px; 0 with `width` 0 is the full image).
        height: u32,
        /// Columns (px).
        width: u32,
        /// Whether the window applies to the rectified image.
        do_rectify: bool,
    }
}

ros_message! {
    /// `sensor_msgs/msg/CameraInfo`: a pinhole camera's calibration.
    CameraInfo = "sensor_msgs/msg/CameraInfo" {
        /// Acquisition time, and the camera's optical frame.
        header: Header,
        /// Image rows the calibration is for (px).
        height: u32,
        /// Image columns (px).
        width: u32,
        /// Distortion model (`"plumb_bob"`, `"rational_polynomial"`, …).
        distortion_model: String,
        /// Distortion coefficients (plumb_bob: k1, k2, t1, t2, k3).
        d: Vec<f64>,
        /// Intrinsic matrix K, 3×3 row-major (px).
        k: [f64; 9],
        /// Rectification rotation R, 3×3 row-major.
        r: [f64; 9],
        /// Projection matrix P, 3×4 row-major (px).
        p: [f64; 12],
        /// Horizontal binning (0 or 1: none).
        binning_x: u32,
        /// Vertical binning (0 or 1: none).
        binning_y: u32,
        /// Region of interest (all zeros: full image).
        roi: RegionOfInterest,
    }
}

ros_message! {
    /// `sensor_msgs/msg/PointField`: one field of a [`PointCloud2`] point.
    PointField = "sensor_msgs/msg/PointField" {
        /// Field name (`"x"`, `"intensity"`, …).
        name: String,
        /// Byte offset in the point.
        offset: u32,
        /// Element type: one of the constants.
        datatype: u8,
        /// Elements in the field.
        count: u32,
    }
    constants {
        /// `int8`.
        INT8: u8 = 1,
        /// `uint8`.
        UINT8: u8 = 2,
        /// `int16`.
        INT16: u8 = 3,
        /// `uint16`.
        UINT16: u8 = 4,
        /// `int32`.
        INT32: u8 = 5,
        /// `uint32`.
        UINT32: u8 = 6,
        /// `float32`.
        FLOAT32: u8 = 7,
        /// `float64`.
        FLOAT64: u8 = 8,
    }
}

ros_message! {
    /// `sensor_msgs/msg/PointCloud2`: points as packed bytes described by
    /// [`PointField`]s.
    PointCloud2 = "sensor_msgs/msg/PointCloud2" {
        /// Acquisition time, and the frame points are in.
        header: Header,
        /// Rows (1 for an unordered cloud).
        height: u32,
        /// Points per row.
        width: u32,
        /// Layout of one point.
        fields: Vec<PointField>,
        /// Whether multi-byte values are big endian.
        is_bigendian: bool,
        /// Bytes per point.
        point_step: u32,
        /// Bytes per row.
        row_step: u32,
        /// The points, `row_step * height` bytes.
        data: Vec<u8>,
        /// True if no point is invalid (NaN).
        is_dense: bool,
    }
}

ros_message! {
    /// `sensor_msgs/msg/LaserScan`: a planar scan, counter-clockwise about
    /// the frame's z axis, angle 0 along x.
    LaserScan = "sensor_msgs/msg/LaserScan" {
        /// Time of the first ray, and the scanner's frame.
        header: Header,
        /// Angle of the first ray (rad).
        angle_min: f32,
        /// Angle of the last ray (rad).
        angle_max: f32,
        /// Angle between rays (rad).
        angle_increment: f32,
        /// Time between rays (s).
        time_increment: f32,
        /// Time between scans (s).
        scan_time: f32,
        /// Shortest valid range (m).
        range_min: f32,
        /// Longest valid range (m).
        range_max: f32,
        /// Ranges (m; outside `range_min..=range_max` is no return).
        ranges: Vec<f32>,
        /// Intensities (device units; empty if none).
        intensities: Vec<f32>,
    }
}

ros_message! {
    /// `sensor_msgs/msg/Range`: one distance along the frame's x axis (an
    /// altimeter or sonar beam).
    Range = "sensor_msgs/msg/Range" {
        /// Stamp, and the sensor's frame.
        header: Header,
        /// [`Range::ULTRASOUND`] or [`Range::INFRARED`].
        radiation_type: u8,
        /// Full arc of the beam (rad).
        field_of_view: f32,
        /// Shortest valid range (m).
        min_range: f32,
        /// Longest valid range (m).
        max_range: f32,
        /// The range (m; -inf/+inf: closer/farther than the limits).
        range: f32,
        /// Variance of the range (m²; 0 is unknown).
        variance: f32,
    }
    constants {
        /// Sound (sonar, echosounder).
        ULTRASOUND: u8 = 0,
        /// Light.
        INFRARED: u8 = 1,
    }
}
