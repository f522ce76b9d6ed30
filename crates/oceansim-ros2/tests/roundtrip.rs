//! Every message round trips, hand-worked layouts of nested messages hold,
//! truncated or corrupted payloads give errors (never panics), and the
//! definitions have the shape rosbag2 writes.

mod common;

use oceansim_ros2::msg::builtin_interfaces::Time;
use oceansim_ros2::msg::geometry_msgs::{
    Quaternion, Transform, TransformStamped, TwistStamped, Vector3,
};
use oceansim_ros2::msg::sensor_msgs::{Imu, PointCloud2, PointField, Range};
use oceansim_ros2::msg::std_msgs::Header;
use oceansim_ros2::{from_cdr, to_cdr, CdrReader, RosMessage};

#[test]
fn every_sample_round_trips_and_names_its_type() {
    let samples = common::all();
    assert_eq!(samples.len(), 31);
    for s in &samples {
        assert_eq!(&s.cdr[..4], &[0x00, 0x01, 0x00, 0x00], "{}", s.type_name);
        assert!(s.hash.starts_with("RIHS01_") && s.hash.len() == 71);
    }
}

#[test]
fn header_layout() {
    let h = Header {
        stamp: Time { sec: 1, nanosec: 2 },
        frame_id: "ab".into(),
    };
    #[rustfmt::skip]
    let expected = [
        0x00, 0x01, 0x00, 0x00,
        1, 0, 0, 0, 2, 0, 0, 0, // stamp
        3, 0, 0, 0, b'a', b'b', 0, // frame_id, with its NUL
    ];
    assert_eq!(to_cdr(&h), expected);
}

#[test]
fn transform_stamped_layout() {
    let t = TransformStamped {
        header: Header {
            stamp: Time { sec: 7, nanosec: 9 },
            frame_id: "odom".into(),
        },
        child_frame_id: "a".into(),
        transform: Transform {
            translation: Vector3 {
                x: 1.0,
                y: 2.0,
                z: 3.0,
            },
            rotation: Quaternion::default(),
        },
    };
    let bytes = to_cdr(&t);
    let body = &bytes[4..];
    // sec 0..4, nanosec 4..8, length 8..12, "odom\0" 12..17, pad to 20,
    // length 20..24, "a\0" 24..26, pad to 32, 7 float64 from 32 to 88.
    assert_eq!(body.len(), 88);
    assert_eq!(&body[8..17], &[5, 0, 0, 0, b'o', b'd', b'o', b'm', 0]);
    assert_eq!(&body[17..20], &[0, 0, 0]);
    assert_eq!(&body[20..26], &[2, 0, 0, 0, b'a', 0]);
    assert_eq!(&body[26..32], &[0; 6]);
    assert_eq!(&body[32..40], &1.0f64.to_le_bytes());
    assert_eq!(&body[80..88], &1.0f64.to_le_bytes()); // rotation.w
}

#[test]
fn point_cloud_layout() {
    let cloud = PointCloud2 {
        fields: vec![PointField {
            name: "x".into(),
            offset: 0,
            datatype: PointField::FLOAT32,
            count: 1,
        }],
        is_bigendian: true,
        data: vec![1, 2, 3],
        is_dense: true,
        ..Default::default()
    };
    let bytes = to_cdr(&cloud);
    #[rustfmt::skip]
    let expected = [
        0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, // stamp, frame_id ""
        0, 0, 0, 0, 0, 0, 0, 0, // height, width
        1, 0, 0, 0, // one field
        2, 0, 0, 0, b'x', 0, 0, 0, // name "x", padded to 4
        0, 0, 0, 0, 7, 0, 0, 0, // offset, datatype FLOAT32 (padded), ...
        1, 0, 0, 0, // ... count
        1, 0, 0, 0, // is_bigendian, padded to 4
        0, 0, 0, 0, 0, 0, 0, 0, // point_step, row_step
        3, 0, 0, 0, 1, 2, 3, // data
        1, // is_dense
    ];
    assert_eq!(&bytes[4..], &expected[..]);
}

#[test]
fn decodes_big_endian_payloads() {
    let mut bytes = vec![0x00, 0x00, 0x00, 0x00];
    for v in [1.0f64, -2.0, 0.5] {
        bytes.extend_from_slice(&v.to_be_bytes());
    }
    let v: Vector3 = from_cdr(&bytes).unwrap();
    assert_eq!(
        v,
        Vector3 {
            x: 1.0,
            y: -2.0,
            z: 0.5
        }
    );
}

#[test]
fn every_truncation_is_an_error() {
    for s in common::all() {
        for len in 0..s.cdr.len() {
            let err = (s.decode)(&s.cdr[..len]);
            assert!(err.is_err(), "{} cut to {len} bytes decoded", s.type_name);
        }
    }
}

#[test]
fn corrupted_payloads_never_panic() {
    // xorshift: a fixed, portable stream of byte flips.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for s in common::all() {
        for _ in 0..300 {
            let mut bytes = s.cdr.clone();
            for _ in 0..1 + next() % 4 {
                let i = (next() % bytes.len() as u64) as usize;
                bytes[i] = next() as u8;
            }
            let _ = (s.decode)(&bytes);
        }
        // A length field of all ones in every position.
        for i in 4..s.cdr.len().saturating_sub(4) {
            let mut bytes = s.cdr.clone();
            bytes[i..i + 4].copy_from_slice(&[0xFF; 4]);
            let _ = (s.decode)(&bytes);
        }
    }
}

#[test]
fn trailing_padding_is_accepted_more_is_not() {
    let mut bytes = to_cdr(&Header::default());
    bytes.extend_from_slice(&[0, 0, 0]);
    assert!(from_cdr::<Header>(&bytes).is_ok());
    bytes.push(0);
    assert_eq!(
        from_cdr::<Header>(&bytes).unwrap_err().code(),
        "ros2_cdr_trailing_bytes"
    );
    // The reader itself leaves the rest to the caller.
    let mut r = CdrReader::new(&bytes).unwrap();
    Header::decode(&mut r).unwrap();
    assert_eq!(r.remaining(), 4);
}

#[test]
fn defaults_follow_the_msg_files() {
    assert_eq!(Quaternion::default().w, 1.0);
    let imu = Imu::default();
    assert_eq!(imu.orientation.w, 1.0);
    assert_eq!(imu.orientation_covariance, [0.0; 9]);
    assert_eq!(Range::default().radiation_type, Range::ULTRASOUND);
}

const SEP: &str =
    "================================================================================";

#[test]
fn twist_stamped_definition() {
    let expected = format!(
        "std_msgs/Header header\nTwist twist\n\
         \n{SEP}\nMSG: geometry_msgs/Twist\nVector3 linear\nVector3 angular\n\
         \n{SEP}\nMSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z\n\
         \n{SEP}\nMSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n\
         \n{SEP}\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"
    );
    assert_eq!(TwistStamped::definition(), expected);
}

#[test]
fn definitions_keep_constants_and_defaults() {
    let def = PointField::definition();
    assert!(def.starts_with("uint8 INT8=1\nuint8 UINT8=2\n"));
    assert!(
        def.contains("uint8 FLOAT64=8\nstring name\nuint32 offset\nuint8 datatype\nuint32 count\n")
    );
    assert!(PointCloud2::definition().contains("PointField[] fields\n"));
    assert!(Range::definition().starts_with(
        "uint8 ULTRASOUND=0\nuint8 INFRARED=1\nstd_msgs/Header header\nuint8 radiation_type\n"
    ));
    assert!(Imu::definition().contains(
        "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n"
    ));
    assert!(Imu::definition().contains("float64[9] orientation_covariance\n"));
}

#[test]
fn definitions_list_each_dependency_once() {
    for s in common::all() {
        let mut names: Vec<&str> = s
            .definition
            .lines()
            .filter_map(|l| l.strip_prefix("MSG: "))
            .collect();
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n, "{}", s.type_name);
        assert_eq!(s.definition.matches(SEP).count(), n, "{}", s.type_name);
    }
}
