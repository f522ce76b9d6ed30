//! Every family: payloads as typed, readings read back.

use super::*;
use oceansim_protocol::reply::SensorPayload;

const FAMILIES: [Family; 10] = [
    Family::Depth,
    Family::Imu,
    Family::Dvl,
    Family::Camera,
    Family::RgbdDenseCloud,
    Family::Lidar2d,
    Family::Lidar3d,
    Family::ImagingSonar,
    Family::MultibeamSonar,
    Family::SideScanSonar,
];

#[test]
fn rendered_payloads_are_the_typed_envelope_byte_for_byte() {
    for f in FAMILIES {
        let (sample, text) = fixture::sample(f, None, &fixture::state());
        let s = Sensor::new("auv/main", f.name(), f, None, 7);
        let typed = crate::milli::to_string_milli(&s.header.envelope(
            sample.time,
            sample.wall_time,
            sample.sequence,
            &sample.reading,
        ));
        assert_eq!(text, typed, "{}", f.name());
        let back: SensorPayload = serde_json::from_str(&text).unwrap();
        assert_eq!(back.sensor_type, f.name());
    }
}

#[test]
fn every_reading_reads_back_from_its_json_equal() {
    for f in FAMILIES {
        let (sample, _) = fixture::sample(f, None, &fixture::state());
        assert_eq!(sample.reading.family(), f);
        let json = serde_json::to_string(&sample.reading).unwrap();
        let mut back = Reading::from_json(f, &json).unwrap();
        if let (Reading::ImagingSonar(b), Reading::ImagingSonar(s)) = (&mut back, &sample.reading) {
            assert!(b.intensity.is_empty(), "the matrix is not in the JSON");
            b.intensity = s.intensity.clone();
        }
        assert_eq!(back, sample.reading, "{}", f.name());
        assert!(Reading::from_json(f, "{}").is_err(), "{}", f.name());
    }
    let imu = serde_json::to_string(
        &fixture::sample(Family::Imu, None, &fixture::state())
            .0
            .reading,
    )
    .unwrap()
    .replace("FRD body", "NED body");
    assert!(
        Reading::from_json(Family::Imu, &imu).is_err(),
        "an unknown constant is refused"
    );
}
