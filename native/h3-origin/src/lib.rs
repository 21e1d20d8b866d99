//! Parts shared by the lab's HTTP/3 origins (quinn and quiche binaries): command line and
//! request routing. Transport-specific code lives with each binary.
pub mod args;
pub mod route;
