//! Congestion controller selection plus an observing wrapper.
//!
//! quinn keeps bytes-in-flight private, but it hands the value to the controller in
//! `on_end_acks`. Wrapping the real controller lets the stats sampler read that value (via
//! `Connection::congestion_state()`, which returns a clone we can downcast) without
//! changing the algorithm's behaviour: every call is forwarded unchanged.
use quinn::congestion::{
    BbrConfig, Controller, ControllerFactory, ControllerMetrics, CubicConfig, NewRenoConfig,
};
use quinn_proto::RttEstimator;
use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

#[derive(Clone, Copy)]
pub enum Kind {
    NewReno,
    Cubic,
    Bbr,
}

pub struct ObservedFactory {
    inner: Arc<dyn ControllerFactory + Send + Sync>,
}

impl ObservedFactory {
    pub fn new(kind: Kind) -> Self {
        let inner: Arc<dyn ControllerFactory + Send + Sync> = match kind {
            Kind::NewReno => Arc::new(NewRenoConfig::default()),
            Kind::Cubic => Arc::new(CubicConfig::default()),
            Kind::Bbr => Arc::new(BbrConfig::default()),
        };
        ObservedFactory { inner }
    }
}

impl ControllerFactory for ObservedFactory {
    fn build(self: Arc<Self>, now: Instant, current_mtu: u16) -> Box<dyn Controller> {
        Box::new(Observed {
            inner: self.inner.clone().build(now, current_mtu),
            in_flight_at_ack: 0,
            sent_since_ack: 0,
            lost_since_ack: 0,
        })
    }
}

/// Snapshot of what the wrapper saw; read by the stats sampler.
pub struct Observation {
    /// Exact bytes in flight right after the latest ACK batch was processed.
    pub in_flight_at_ack: u64,
    /// Estimate for "now": at-ACK value + datagram bytes sent since - bytes declared lost since.
    /// Over-counts the rare non-ack-eliciting packet (pure ACKs) sent since the last ACK.
    pub in_flight_est: u64,
    pub metrics: ControllerMetrics,
}

pub fn observe(state: Box<dyn Controller>) -> Option<Observation> {
    let metrics = state.metrics();
    let me = state.into_any().downcast::<Observed>().ok()?;
    Some(Observation {
        in_flight_at_ack: me.in_flight_at_ack,
        in_flight_est: (me.in_flight_at_ack + me.sent_since_ack).saturating_sub(me.lost_since_ack),
        metrics,
    })
}

struct Observed {
    inner: Box<dyn Controller>,
    in_flight_at_ack: u64,
    sent_since_ack: u64,
    lost_since_ack: u64,
}

impl Controller for Observed {
    fn on_sent(&mut self, now: Instant, bytes: u64, last_packet_number: u64) {
        self.sent_since_ack += bytes;
        self.inner.on_sent(now, bytes, last_packet_number)
    }

    fn on_ack(&mut self, now: Instant, sent: Instant, bytes: u64, app_limited: bool, rtt: &RttEstimator) {
        self.inner.on_ack(now, sent, bytes, app_limited, rtt)
    }

    fn on_end_acks(&mut self, now: Instant, in_flight: u64, app_limited: bool, largest: Option<u64>) {
        self.in_flight_at_ack = in_flight;
        self.sent_since_ack = 0;
        self.lost_since_ack = 0;
        self.inner.on_end_acks(now, in_flight, app_limited, largest)
    }

    fn on_congestion_event(&mut self, now: Instant, sent: Instant, persistent: bool, lost_bytes: u64) {
        self.lost_since_ack += lost_bytes;
        self.inner.on_congestion_event(now, sent, persistent, lost_bytes)
    }

    fn on_mtu_update(&mut self, new_mtu: u16) {
        self.inner.on_mtu_update(new_mtu)
    }

    fn window(&self) -> u64 {
        self.inner.window()
    }

    fn metrics(&self) -> ControllerMetrics {
        self.inner.metrics()
    }

    fn clone_box(&self) -> Box<dyn Controller> {
        Box::new(Observed {
            inner: self.inner.clone_box(),
            in_flight_at_ack: self.in_flight_at_ack,
            sent_since_ack: self.sent_since_ack,
            lost_since_ack: self.lost_since_ack,
        })
    }

    fn initial_window(&self) -> u64 {
        self.inner.initial_window()
    }

    fn into_any(self: Box<Self>) -> Box<dyn Any> {
        self
    }
}
