use super::*;

#[test]
fn components_have_shape_and_broadcast_init() {
    let mut w = World::new(3);
    let p = w.add("p", &[2], Some(&[1.0, 2.0])).unwrap();
    assert_eq!(&*w.read(p), &[1.0, 2.0, 1.0, 2.0, 1.0, 2.0]);
    let t = w.add("theta", &[], None).unwrap();
    assert_eq!(w.read(t).len(), 3);
    assert!(!w.component("theta").unwrap().initialized());
    let r = w.add("R", &[3, 3], None).unwrap();
    assert_eq!(r.stride(), 9);
    assert_eq!(w.read(r).len(), 27);
    let k = w.add_i64("k", &[], Some(&[1, 2, 3])).unwrap();
    assert_eq!(&*w.read(k), &[1, 2, 3]);
    let alive = w.add_bool("alive", &[], Some(&[true])).unwrap();
    assert_eq!(&*w.read(alive), &[true, true, true]);
}

#[test]
fn clear_errors() {
    let mut w = World::new(2);
    w.add("p", &[2], None).unwrap();
    assert_eq!(
        w.add("p", &[1], None).unwrap_err().code(),
        "duplicate_component"
    );
    let e = w.add("q", &[2], Some(&[1.0, 2.0, 3.0])).unwrap_err();
    assert_eq!(e.code(), "shape_mismatch");
    assert!(e.to_string().contains("(2, 2)"), "{e}");
    let e = w.handle::<f64>("pp").unwrap_err();
    assert!(e.to_string().contains("did you mean `p`"), "{e}");
    w.add_i64("k", &[], None).unwrap();
    assert_eq!(w.handle::<f64>("k").unwrap_err().code(), "dtype_mismatch");
    assert!(w.set("p", &[1.0]).is_err());
}

#[test]
fn ids_are_stable_and_never_reused_and_rows_stay_dense() {
    let mut w = World::new(3);
    let p = w.add("p", &[2], None).unwrap();
    let q = w.add("q", &[], Some(&[7.0])).unwrap();
    let name = w.add_object::<String>("name").unwrap();
    for (i, e) in w.entities().to_vec().into_iter().enumerate() {
        w.set_row(p, e, &[i as f64, 10.0 * i as f64]).unwrap();
        w.objects_mut(name)[i] = Some(format!("n{i}"));
    }
    let e0 = w.entity(0);
    w.despawn(e0).unwrap();
    // The last entity moved into row 0 and kept its id and data.
    assert_eq!(w.len(), 2);
    assert_eq!(w.entity(0), Entity::from_raw(2));
    assert_eq!(w.row(Entity::from_raw(2)), Some(0));
    assert_eq!(&*w.read(p), &[2.0, 20.0, 1.0, 10.0]);
    assert_eq!(w.objects(name)[0].as_deref(), Some("n2"));
    assert!(w.despawn(e0).is_err(), "despawning twice is an error");
    assert_eq!(w.row(e0), None);
    // A new entity gets a fresh id and the registered default row.
    let e3 = w.spawn();
    assert_eq!(e3.id(), 3);
    assert_eq!(w.get_row(q, e3), Some(vec![7.0]));
    assert_eq!(w.get_row(p, e3), Some(vec![0.0, 0.0]));
    assert!(w.objects(name)[2].is_none());
    // Deferred despawns apply later and skip the dead.
    w.defer_despawn(Entity::from_raw(1));
    w.defer_despawn(e0);
    assert_eq!(w.len(), 3);
    assert_eq!(w.apply_deferred(), 1);
    assert_eq!(w.entities(), &[Entity::from_raw(2), e3]);
    assert_eq!(&*w.read(p), &[2.0, 20.0, 0.0, 0.0]);
}

#[test]
fn resources_and_objects_are_typed_and_named() {
    let mut w = World::new(1);
    let clock = w.insert_resource("clock", 5u64).unwrap();
    *w.resource_mut(clock) += 1;
    assert_eq!(*w.resource(clock), 6);
    assert!(w.has("clock"));
    assert_eq!(
        w.resource_handle::<f64>("clock").unwrap_err().code(),
        "dtype_mismatch"
    );
    assert_eq!(
        w.insert_resource("clock", 1u8).unwrap_err().code(),
        "duplicate_component"
    );
    w.add_object::<Vec<u8>>("blob").unwrap();
    assert!(w.object_handle::<Vec<u8>>("blob").is_ok());
    assert!(w.object_handle::<String>("blob").is_err());
    let e = w.object_handle::<String>("blbo").unwrap_err();
    assert!(e.to_string().contains("did you mean `blob`"), "{e}");
}

#[test]
fn live_access_by_handle_and_name() {
    let mut w = World::new(2);
    let p = w.add("p", &[2], None).unwrap();
    w.write(p)[3] = 5.0;
    assert_eq!(w.get::<f64>("p").unwrap()[3], 5.0);
    w.get_mut::<f64>("p").unwrap()[0] = 1.0;
    assert_eq!(w.read(p)[0], 1.0);
}

/// A world with `a`, `b` (components), `o` (object) and `r` (resource),
/// and one system that touches them as `touch` does, declaring `access`.
fn run_one(access: crate::Access, touch: fn(&World, &Handles4)) -> std::thread::Result<()> {
    let mut w = World::new(2);
    let h = Handles4 {
        a: w.add("a", &[], Some(&[1.0])).unwrap(),
        b: w.add("b", &[], None).unwrap(),
        o: w.add_object::<u8>("o").unwrap(),
        r: w.insert_resource("r", 0u8).unwrap(),
    };
    w.add_system(crate::FnSystem::new(
        "s",
        access,
        move |w: &World, _: &crate::Step| touch(w, &h),
    ))
    .unwrap();
    let mut engine = crate::Engine::new(0.1);
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        engine.run(&mut w, 1).unwrap();
    }))
}

#[derive(Clone, Copy)]
struct Handles4 {
    a: Handle<f64>,
    b: Handle<f64>,
    o: ObjectHandle<u8>,
    r: ResourceHandle<u8>,
}

#[test]
fn a_system_touches_only_what_it_declared() {
    use crate::Access;
    let declared = || Access::new().reads(["a", "o"]).writes(["b", "r"]);
    // What is declared runs; a declared write covers reading it.
    run_one(declared(), |w, h| {
        let _ = (w.read(h.a), w.objects(h.o), w.read(h.b), w.resource(h.r));
        w.write(h.b)[0] = 1.0;
        *w.resource_mut(h.r) = 1;
    })
    .expect("declared access runs");
    if !cfg!(debug_assertions) {
        return;
    }
    let undeclared: [fn(&World, &Handles4); 4] = [
        |w, h| w.write(h.a)[0] = 2.0,
        |w, h| w.objects_mut(h.o)[0] = Some(1),
        |w, h| {
            let _ = w.read(h.b);
            let _ = w.resource(h.r);
            let _ = w.objects(h.o);
            let _ = w.read(h.a);
        },
        |w, _| {
            // A name resolved at run time is checked the same way.
            let _ = w.get::<f64>("a");
        },
    ];
    let message = run_one(declared(), undeclared[0]).expect_err("an undeclared write runs");
    let message = message
        .downcast_ref::<String>()
        .cloned()
        .unwrap_or_default();
    assert!(message.contains("system `s` writes `a`"), "{message}");
    assert!(
        run_one(declared(), undeclared[1]).is_err(),
        "an undeclared write runs"
    );
    let none = || Access::new();
    assert!(
        run_one(none(), undeclared[2]).is_err(),
        "an undeclared read runs"
    );
    assert!(
        run_one(none(), undeclared[3]).is_err(),
        "an undeclared read by name runs"
    );
    // Outside a system nothing is checked.
    let mut w = World::new(1);
    let a = w.add("a", &[], None).unwrap();
    w.write(a)[0] = 1.0;
}
