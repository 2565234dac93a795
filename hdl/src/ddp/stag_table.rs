//! Placeholder: see the module documentation of the parent for the port contract.
