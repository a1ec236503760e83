//! This machine, as the program meets it outside SQL and HTTP: its processes
//! (`process`: which one runs a run, and whether it still does), its files
//! (`file`: a document written to a path an operator names without following a
//! link there) and its disks (`space`: what is free where copies go). Below the store and the configuration, which both use them;
//! nothing here knows a run, a vendor or a table.

pub mod file;
pub mod process;
pub mod space;
