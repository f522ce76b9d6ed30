//! Debugging tools: what a world contains and how its data flows.
//!
//! In a data-oriented core, data and behaviour meet only through names, so a
//! mistyped component in a system's declared access is the failure to look
//! for first. Both functions are pure inspection.

use crate::error::closest;
use crate::integration::INTEGRATION;
use crate::scheduler::build_schedule;
use crate::system::Access;
use crate::system::MONITORS;
use crate::world::World;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::fmt::Write as _;

/// Kinds of dataflow problem, in the order `check` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum IssueKind {
    /// A system declares a component that does not exist (likely a typo).
    UnknownComponent,
    /// A component written by more than one system.
    MultipleWriters,
    /// A component read, never written and never initialised.
    ReadNeverWritten,
    /// An integrated state whose derivative is missing or never produced.
    StateWithoutDerivative,
}

/// One dataflow problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// What kind.
    pub kind: IssueKind,
    /// Human-readable detail.
    pub message: String,
}

impl fmt::Display for Issue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.kind, self.message)
    }
}

fn accesses(world: &World) -> Vec<(String, Access)> {
    let mut v: Vec<(String, Access)> = world
        .systems
        .iter()
        .map(|s| (s.name().to_owned(), s.access()))
        .collect();
    let integ = Access::new()
        .reads(world.states.iter().map(|s| s.derivative.clone()))
        .writes(world.states.iter().map(|s| s.state.clone()));
    v.push((INTEGRATION.into(), integ));
    v
}

/// Pairs (a, b) where system a runs before b by `after`/`before` hints,
/// transitively.
fn explicit_order(acc: &[(String, Access)]) -> BTreeSet<(&str, &str)> {
    let mut edges: BTreeSet<(&str, &str)> = BTreeSet::new();
    for (name, a) in acc {
        for h in &a.after {
            edges.insert((h.as_str(), name.as_str()));
        }
        for h in &a.before {
            edges.insert((name.as_str(), h.as_str()));
        }
    }
    // Transitive closure; the hint graph is small.
    loop {
        let extra: Vec<(&str, &str)> = edges
            .iter()
            .flat_map(|&(a, b)| {
                edges
                    .iter()
                    .filter(move |&&(c, _)| c == b)
                    .map(move |&(_, d)| (a, d))
            })
            .filter(|p| !edges.contains(p))
            .collect();
        if extra.is_empty() {
            return edges;
        }
        edges.extend(extra);
    }
}

/// Reports dataflow problems: unknown component names first, then
/// suspicious wiring.
pub fn check_world(world: &World) -> Vec<Issue> {
    let acc = accesses(world);
    let names = || world.components.iter().map(|c| c.name.as_str());
    let mut issues = Vec::new();
    // The integration system's names are the states' own; a missing
    // derivative is reported below as a state problem.
    for (sys, a) in acc.iter().filter(|(n, _)| n != INTEGRATION) {
        for (verb, list) in [
            ("reads", &a.reads),
            ("writes", &a.writes),
            ("carries", &a.carried),
        ] {
            for name in list {
                if !world.has(name) {
                    let hint = closest(name, names())
                        .map(|h| format!(" (did you mean `{h}`?)"))
                        .unwrap_or_default();
                    issues.push(Issue {
                        kind: IssueKind::UnknownComponent,
                        message: format!("system `{sys}` {verb} unknown component `{name}`{hint}"),
                    });
                }
            }
        }
    }
    let mut writers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut readers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (sys, a) in &acc {
        for w in &a.writes {
            writers.entry(w).or_default().push(sys);
        }
        for r in a.reads.iter().chain(&a.carried) {
            readers.entry(r).or_default().push(sys);
        }
    }
    let ordered = explicit_order(&acc);
    for (c, ws) in &writers {
        // Several writers are fine when their order is declared (a contact
        // stage after the integrator, say); otherwise the last one wins by
        // registration order, which is rarely meant.
        let all_ordered = ws.iter().enumerate().all(|(i, a)| {
            ws[i + 1..]
                .iter()
                .all(|b| ordered.contains(&(*a, *b)) || ordered.contains(&(*b, *a)))
        });
        if ws.len() > 1 && world.has(c) && !all_ordered {
            issues.push(Issue {
                kind: IssueKind::MultipleWriters,
                message: format!(
                    "component `{c}` is written by {} systems: {}",
                    ws.len(),
                    ws.join(", ")
                ),
            });
        }
    }
    for (c, rs) in &readers {
        let Ok(comp) = world.component(c) else {
            continue;
        };
        if !writers.contains_key(c) && !comp.initialized() && !world.is_state(c) {
            issues.push(Issue {
                kind: IssueKind::ReadNeverWritten,
                message: format!(
                    "component `{c}` is read by {} but never written and has no initial values (it stays zero)",
                    rs.join(", ")
                ),
            });
        }
    }
    for s in &world.states {
        let message = match world.component(&s.derivative) {
            Err(_) => Some(format!("derivative `{}` does not exist", s.derivative)),
            Ok(d) if !writers.contains_key(s.derivative.as_str()) && !d.initialized() => {
                Some(format!(
                    "derivative `{}` is never written, so `{}` never changes",
                    s.derivative, s.state
                ))
            }
            Ok(_) => None,
        };
        if let Some(m) = message {
            issues.push(Issue {
                kind: IssueKind::StateWithoutDerivative,
                message: format!("state `{}`: {m}", s.state),
            });
        }
    }
    issues.sort_by_key(|i| i.kind);
    issues
}

/// A human-readable dump: components, systems in schedule order, and who
/// reads and writes what.
pub fn describe_world(world: &World) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "World: {} entities, t = {}", world.len(), world.time());
    let _ = writeln!(out, "Components:");
    for c in &world.components {
        let mut shape = vec![world.len().to_string()];
        shape.extend(c.dim.iter().map(usize::to_string));
        let state = world
            .states
            .iter()
            .find(|s| s.state == c.name)
            .map(|s| format!("  state on {}, d/dt = {}", s.manifold.name(), s.derivative))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<16} ({}) {}{}",
            c.name,
            shape.join(", "),
            c.dtype(),
            state
        );
    }
    for o in &world.objects {
        let _ = writeln!(
            out,
            "  {:<16} ({}) object {}",
            o.name,
            world.len(),
            o.store_type_name()
        );
    }
    if !world.resources.is_empty() {
        let _ = writeln!(out, "Resources:");
        for r in &world.resources {
            let _ = writeln!(out, "  {:<16} {}", r.name, r.type_name());
        }
    }
    let acc = accesses(world);
    let states: BTreeSet<String> = world.state_names();
    let _ = writeln!(out, "Systems (schedule order):");
    match build_schedule(&acc, &states) {
        Ok(order) => {
            let n = world.systems.len();
            let order = order.into_iter().filter(|&i| i < n).chain([n]);
            for (k, i) in order.enumerate() {
                let (name, a) = &acc[i];
                let doc = world.systems.get(i).map_or("", |s| s.doc());
                let carried = if a.carried.is_empty() {
                    String::new()
                } else {
                    format!(" carries [{}]", a.carried.join(", "))
                };
                let _ = writeln!(
                    out,
                    "  {}. {:<16} reads [{}]{carried} writes [{}]{}{}",
                    k + 1,
                    name,
                    a.reads.join(", "),
                    a.writes.join(", "),
                    if doc.is_empty() { "" } else { ": " },
                    doc
                );
            }
            let _ = writeln!(out, "  {}. {MONITORS}", acc.len() + 1);
        }
        Err(e) => {
            let _ = writeln!(out, "  (no valid schedule: {e})");
        }
    }
    let _ = writeln!(out, "Dataflow:");
    let names = world
        .components
        .iter()
        .map(|c| &c.name)
        .chain(world.objects.iter().map(|o| &o.name))
        .chain(world.resources.iter().map(|r| &r.name));
    for name in names {
        let w: Vec<&str> = acc
            .iter()
            .filter(|(_, a)| a.writes.contains(name))
            .map(|(n, _)| n.as_str())
            .collect();
        let r: Vec<&str> = acc
            .iter()
            .filter(|(_, a)| a.reads.contains(name) || a.carried.contains(name))
            .map(|(n, _)| n.as_str())
            .collect();
        let _ = writeln!(
            out,
            "  {:<16} written by [{}]; read by [{}]",
            name,
            w.join(", "),
            r.join(", ")
        );
    }
    if !world.monitors.is_empty() {
        let names: Vec<&str> = world.monitors.iter().map(|m| m.name()).collect();
        let _ = writeln!(out, "Monitors: {}", names.join(", "));
    }
    if !world.params.is_empty() {
        let _ = writeln!(
            out,
            "Params: {}",
            serde_json::Value::Object(world.params.clone())
        );
    }
    out
}
