//! The vehicles a middleware worker (Zenoh's or DDS's) serves, and how
//! both drop those that left the simulation.

use crate::{keys, Vehicle};
use std::collections::{BTreeMap, BTreeSet};

/// The vehicles a middleware worker serves, by agent: the namespace and
/// the command subscriptions (Zenoh subscribers, DDS readers) of each.
pub(crate) type Served<S> = BTreeMap<String, (String, Vec<S>)>;

/// Drops from `served` the vehicles not in `now`, or in `now` under
/// another namespace, with their subscriptions; returns their topic
/// prefixes under the bridge's namespace `bridge_ns` (`/ns/auv/`), whose
/// publishers the worker drops next. Both workers keep their vehicles so.
pub(crate) fn drop_departed<S>(
    served: &mut Served<S>,
    now: &[Vehicle],
    bridge_ns: &str,
) -> BTreeSet<String> {
    let now: BTreeMap<&str, &str> = now
        .iter()
        .map(|v| (v.agent.as_str(), v.namespace.as_str()))
        .collect();
    let gone: Vec<String> = served
        .iter()
        .filter(|(agent, (ns, _))| now.get(agent.as_str()) != Some(&ns.as_str()))
        .map(|(agent, _)| agent.clone())
        .collect();
    gone.iter()
        .filter_map(|agent| served.remove(agent))
        .map(|(ns, _)| format!("{}/", keys::join_namespace(bridge_ns, &ns)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn departed_vehicles_go_with_their_topic_prefixes() {
        let vehicle = |agent: &str, namespace: &str| Vehicle {
            agent: agent.into(),
            namespace: namespace.into(),
        };
        let mut served: Served<u8> = [
            ("a".to_string(), ("/a".to_string(), vec![1])),
            ("b".to_string(), ("/b".to_string(), vec![2])),
            ("c".to_string(), ("/c".to_string(), vec![3])),
        ]
        .into();
        // a stays, b moves to another namespace, c is gone.
        let now = [vehicle("a", "/a"), vehicle("b", "/b2")];
        let prefixes = drop_departed(&mut served, &now, "/sim");
        assert_eq!(served.keys().collect::<Vec<_>>(), ["a"]);
        assert_eq!(
            prefixes.into_iter().collect::<Vec<_>>(),
            ["/sim/b/", "/sim/c/"]
        );
        // Without a bridge namespace the vehicle's own is the prefix.
        let prefixes = drop_departed(&mut served, &[], "");
        assert_eq!(prefixes.into_iter().collect::<Vec<_>>(), ["/a/"]);
        assert!(served.is_empty());
    }
}
