//! When to try again and how long to wait: a pure decision over what the last
//! attempt got, bounded in count, per-wait hint and total wait.

use std::time::Duration;

use crate::core::error::Error;

/// The retry bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// The first backoff when the vendor gave no hint; doubled each retry.
    pub base_delay: Duration,
    /// A vendor hint longer than this is not waited for: the error is returned.
    pub max_delay_per_wait: Duration,
    /// All waits of one request together stay under this.
    pub max_total_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            base_delay: Duration::from_millis(500),
            max_delay_per_wait: Duration::from_secs(60),
            max_total_wait: Duration::from_secs(90),
        }
    }
}

/// What to do after a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Wait this long, then try again.
    RetryAfter(Duration),
    /// Give up and return the error.
    GiveUp,
}

impl RetryPolicy {
    /// Decide after attempt number `attempt` (1-based) failed with `error`, having
    /// already waited `waited`. `should_retry` is the vendor's `x-should-retry`.
    pub fn next(
        &self,
        attempt: u32,
        error: &Error,
        should_retry: Option<bool>,
        waited: Duration,
    ) -> Next {
        let retryable = should_retry.unwrap_or_else(|| error.is_retryable());
        if !retryable || attempt > self.max_retries || error.is_config() {
            return Next::GiveUp;
        }
        let hint = error.vendor().and_then(|v| v.retry_after);
        let wait = match hint {
            Some(h) if h > self.max_delay_per_wait => return Next::GiveUp,
            Some(h) => h,
            None => self
                .base_delay
                .saturating_mul(2u32.saturating_pow(attempt - 1))
                .min(self.max_delay_per_wait),
        };
        if waited + wait > self.max_total_wait {
            return Next::GiveUp;
        }
        Next::RetryAfter(wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::error::VendorError;

    fn vendor(status: u16, hint: Option<u64>, error_type: Option<&str>) -> Error {
        Error::from(VendorError {
            provider: crate::core::vendor::Vendor::Anthropic,
            status,
            error_type: error_type.map(Into::into),
            code: None,
            message: "m".into(),
            request_id: None,
            retry_after: hint.map(Duration::from_millis),
        })
    }

    #[test]
    fn statuses_hints_and_bounds() {
        let p = RetryPolicy::default();
        assert_eq!(
            p.next(1, &vendor(529, None, None), None, Duration::ZERO),
            Next::RetryAfter(Duration::from_millis(500))
        );
        assert_eq!(
            p.next(2, &vendor(500, None, None), None, Duration::ZERO),
            Next::RetryAfter(Duration::from_millis(1000))
        );
        assert_eq!(
            p.next(3, &vendor(500, None, None), None, Duration::ZERO),
            Next::GiveUp
        );
        assert_eq!(
            p.next(1, &vendor(429, Some(120), None), None, Duration::ZERO),
            Next::RetryAfter(Duration::from_millis(120))
        );
        assert_eq!(
            p.next(1, &vendor(429, Some(61_000), None), None, Duration::ZERO),
            Next::GiveUp
        );
        assert_eq!(
            p.next(
                1,
                &vendor(429, None, Some("insufficient_quota")),
                None,
                Duration::ZERO
            ),
            Next::GiveUp
        );
        assert_eq!(
            p.next(1, &vendor(400, None, None), None, Duration::ZERO),
            Next::GiveUp
        );
        assert_eq!(
            p.next(1, &vendor(400, None, None), Some(true), Duration::ZERO),
            Next::RetryAfter(Duration::from_millis(500))
        );
        assert_eq!(
            p.next(1, &vendor(503, None, None), Some(false), Duration::ZERO),
            Next::GiveUp
        );
        assert_eq!(
            p.next(
                1,
                &vendor(503, Some(50_000), None),
                None,
                Duration::from_secs(50)
            ),
            Next::GiveUp
        );
        for status in [408, 409] {
            assert!(matches!(
                p.next(1, &vendor(status, None, None), None, Duration::ZERO),
                Next::RetryAfter(_)
            ));
        }
    }
}
