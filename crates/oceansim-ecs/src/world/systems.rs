//! Systems, monitors and introspection registered on a world.

use super::*;

impl World {
    /// Registers a system and collects its monitors, tracked scalars and
    /// params (a param key already set is an error).
    pub fn add_system(&mut self, mut system: impl System + 'static) -> Result<()> {
        let name = system.name().to_owned();
        if self.systems.iter().any(|s| s.name() == name) {
            return Err(EcsError::DuplicateSystem(name));
        }
        for (k, v) in system.params() {
            if self.params.contains_key(&k) {
                return Err(EcsError::Invalid(format!(
                    "system `{name}` sets param `{k}`, which is already set"
                )));
            }
            self.params.insert(k, v);
        }
        self.monitors.extend(system.monitors());
        self.tracked.extend(system.tracked());
        self.systems.push(Box::new(system));
        self.version += 1;
        Ok(())
    }

    /// Registers a global scalar `source(world)` logged at every log step.
    pub fn track(&mut self, name: &str, source: impl FnMut(&World) -> f64 + 'static) {
        self.tracked.push(Tracked::new(name, source));
    }

    /// Registers a monitor not owned by any system.
    pub fn add_monitor(&mut self, monitor: Monitor) {
        self.monitors.push(monitor);
    }

    /// The monitors.
    pub fn monitors(&self) -> &[Monitor] {
        &self.monitors
    }

    /// Names of the registered systems, in registration order.
    pub fn system_names(&self) -> Vec<String> {
        self.systems.iter().map(|s| s.name().to_owned()).collect()
    }

    /// Components, systems, and the dataflow between them.
    pub fn describe(&self) -> String {
        crate::introspect::describe_world(self)
    }

    /// Dataflow problems: unknown component names first, then suspicious
    /// wiring.
    pub fn check(&self) -> Vec<crate::introspect::Issue> {
        crate::introspect::check_world(self)
    }
}
