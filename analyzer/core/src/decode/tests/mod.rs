//! Decoder tests. Frames are built from templates (`build`) with one field changed per
//! test; names read `<state>_<event>`.

mod build;
mod ip;
mod lean;
mod link;
mod tcp;
mod truncation;
mod tunnel;
