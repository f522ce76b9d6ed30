//! Empty: this package only carries the criterion bench targets.
