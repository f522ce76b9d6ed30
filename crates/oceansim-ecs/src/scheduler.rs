//! Orders systems by their declared data dependencies.
//!
//! Within one tick a system that reads a component runs after every system
//! that writes it. Integrated state is loop-carried (available at tick start
//! from the previous tick's integration), so reading a state component
//! creates no edge; otherwise control → dynamics → integration → state would
//! look like a cycle. `after`/`before` hints add explicit edges. The order is
//! a stable topological sort (Kahn): among ready systems the earliest
//! registered runs first, so independent systems keep registration order.

use crate::error::{EcsError, Result};
use crate::system::Access;
use std::collections::{BTreeMap, BTreeSet};

/// Returns system indices in a valid execution order.
///
/// `systems` holds each system's name and access, in registration order;
/// `state_components` names the integrated states. A cycle is an error
/// naming the systems in it; a hint naming an unknown system is an error.
pub fn build_schedule(
    systems: &[(String, Access)],
    state_components: &BTreeSet<String>,
) -> Result<Vec<usize>> {
    let n = systems.len();
    let index: BTreeMap<&str, usize> = systems
        .iter()
        .enumerate()
        .map(|(i, (name, _))| (name.as_str(), i))
        .collect();
    let mut edges: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    let mut writers: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, (_, a)) in systems.iter().enumerate() {
        for w in &a.writes {
            writers.entry(w.as_str()).or_default().push(i);
        }
    }
    for (i, (name, a)) in systems.iter().enumerate() {
        for r in &a.reads {
            if state_components.contains(r) {
                continue;
            }
            for &w in writers.get(r.as_str()).into_iter().flatten() {
                if w != i {
                    edges[w].insert(i);
                }
            }
        }
        for (hints, forward) in [(&a.after, false), (&a.before, true)] {
            for h in hints {
                let &j = index
                    .get(h.as_str())
                    .ok_or_else(|| EcsError::UnknownSystem {
                        system: name.clone(),
                        name: h.clone(),
                    })?;
                if forward {
                    edges[i].insert(j);
                } else {
                    edges[j].insert(i);
                }
            }
        }
    }
    let mut indegree = vec![0usize; n];
    for targets in &edges {
        for &t in targets {
            indegree[t] += 1;
        }
    }
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut order = Vec::with_capacity(n);
    while let Some(&i) = ready.iter().next() {
        ready.remove(&i);
        order.push(i);
        for &t in &edges[i] {
            indegree[t] -= 1;
            if indegree[t] == 0 {
                ready.insert(t);
            }
        }
    }
    if order.len() < n {
        return Err(EcsError::Cycle(find_cycle(&edges, &indegree, systems)));
    }
    Ok(order)
}

/// Names of the systems on one cycle among the unscheduled nodes, with the
/// first repeated at the end.
fn find_cycle(
    edges: &[BTreeSet<usize>],
    indegree: &[usize],
    systems: &[(String, Access)],
) -> Vec<String> {
    let left: BTreeSet<usize> = (0..edges.len()).filter(|&i| indegree[i] > 0).collect();
    // Every unscheduled node has an unscheduled predecessor, so walking
    // predecessors must revisit a node; the revisited stretch is a cycle.
    let preds = |v: usize| (0..edges.len()).find(|&u| left.contains(&u) && edges[u].contains(&v));
    let mut seen = BTreeMap::new();
    let mut path = Vec::new();
    let mut v = *left.iter().next().unwrap_or(&0);
    while !seen.contains_key(&v) {
        seen.insert(v, path.len());
        path.push(v);
        match preds(v) {
            Some(u) => v = u,
            None => break,
        }
    }
    let start = seen.get(&v).copied().unwrap_or(0);
    let mut cycle: Vec<String> = path[start..]
        .iter()
        .rev()
        .map(|&i| systems[i].0.clone())
        .collect();
    if let Some(first) = cycle.first().cloned() {
        cycle.push(first);
    }
    cycle
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sys(name: &str, reads: &[&str], writes: &[&str]) -> (String, Access) {
        (
            name.into(),
            Access::new()
                .reads(reads.iter().copied())
                .writes(writes.iter().copied()),
        )
    }

    fn names(systems: &[(String, Access)], states: &[&str]) -> Vec<String> {
        let states = states.iter().map(|s| s.to_string()).collect();
        build_schedule(systems, &states)
            .unwrap()
            .into_iter()
            .map(|i| systems[i].0.clone())
            .collect()
    }

    #[test]
    fn producers_run_before_consumers() {
        let s = vec![
            sys("dynamics", &["u", "theta"], &["p_dot"]),
            sys("controller", &["p"], &["u"]),
            sys("integrate", &["p_dot"], &["p"]),
        ];
        assert_eq!(
            names(&s, &["p", "theta"]),
            ["controller", "dynamics", "integrate"]
        );
    }

    #[test]
    fn ties_keep_registration_order() {
        let s = vec![
            sys("c", &[], &["x"]),
            sys("a", &[], &["y"]),
            sys("b", &[], &["z"]),
        ];
        assert_eq!(names(&s, &[]), ["c", "a", "b"]);
        // A late producer pulls only its consumer after it.
        let s = vec![
            sys("first", &[], &["a"]),
            sys("consumer", &["late"], &["b"]),
            sys("other", &[], &["c"]),
            sys("producer", &[], &["late"]),
        ];
        assert_eq!(names(&s, &[]), ["first", "other", "producer", "consumer"]);
    }

    #[test]
    fn reading_state_creates_no_edge() {
        // The controller reads p (state) which integration writes: no cycle.
        let s = vec![
            sys("integrate", &["u"], &["p"]),
            sys("controller", &["p"], &["u"]),
        ];
        assert_eq!(names(&s, &["p"]), ["controller", "integrate"]);
        // Without marking p as state it is a genuine cycle.
        let e = build_schedule(&s, &BTreeSet::new()).unwrap_err();
        assert_eq!(e.code(), "schedule_cycle");
        let msg = e.to_string();
        assert!(
            msg.contains("integrate") && msg.contains("controller"),
            "{msg}"
        );
    }

    #[test]
    fn hints_add_edges() {
        let mut s = vec![sys("a", &[], &["x"]), sys("b", &[], &["y"])];
        s[0].1 = s[0].1.clone().after("b");
        assert_eq!(names(&s, &[]), ["b", "a"]);
        let mut s = vec![
            sys("a", &[], &["x"]),
            sys("b", &[], &["y"]),
            sys("c", &[], &[]),
        ];
        s[2].1 = s[2].1.clone().before("a");
        // a waits for c; among the ready {b, c} the earlier-registered b goes first.
        assert_eq!(names(&s, &[]), ["b", "c", "a"]);
        let mut s = vec![sys("a", &[], &[])];
        s[0].1 = s[0].1.clone().after("ghost");
        assert_eq!(
            build_schedule(&s, &BTreeSet::new()).unwrap_err().code(),
            "unknown_system"
        );
    }

    #[test]
    fn a_cycle_names_exactly_its_systems() {
        let s = vec![
            sys("free", &[], &["z"]),
            sys("x", &["c"], &["a"]),
            sys("y", &["a"], &["b"]),
            sys("w", &["b"], &["c"]),
            sys("tail", &["c"], &["d"]),
        ];
        let e = build_schedule(&s, &BTreeSet::new()).unwrap_err();
        let EcsError::Cycle(cycle) = e else { panic!() };
        assert_eq!(cycle.len(), 4, "{cycle:?}");
        assert_eq!(cycle.first(), cycle.last());
        let members: BTreeSet<&str> = cycle.iter().map(String::as_str).collect();
        assert_eq!(members, ["w", "x", "y"].into_iter().collect());
        // Consecutive names really are producer -> consumer.
        let produces = |a: &str, b: &str| {
            let (_, aa) = s.iter().find(|(n, _)| n == a).unwrap();
            let (_, bb) = s.iter().find(|(n, _)| n == b).unwrap();
            aa.writes.iter().any(|w| bb.reads.contains(w))
        };
        assert!(
            cycle.windows(2).all(|p| produces(&p[0], &p[1])),
            "{cycle:?}"
        );
    }
}
