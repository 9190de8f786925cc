//! Timestamps as people read them; the exact time stays available on hover and to screen readers.

use leptos::prelude::*;

#[component]
pub fn Timestamp(rfc3339: String) -> impl IntoView {
    // Server and browser must render the same text for hydration, so no clock is read here.
    let shown = rfc3339
        .get(..16)
        .map(|s| s.replace('T', " "))
        .unwrap_or_else(|| rfc3339.clone());
    view! {
        <time datetime=rfc3339.clone() title=rfc3339>
            {shown}
        </time>
    }
}

/// How long ago `rfc3339` was ("5m", "2h", "3d"; with `ago`, "5m ago"). The server renders the
/// timestamp itself (it cannot know the reader's clock); the browser switches to the age once
/// hydrated and keeps it current. `ago` belongs to the age only: "created 2026-11-25 18:31 ago"
/// would be wrong.
#[component]
pub fn Age(rfc3339: String, #[prop(optional)] ago: bool) -> impl IntoView {
    let now = RwSignal::new(None::<f64>);
    Effect::new(move |_| {
        now.set(Some(js_now()));
        #[cfg(feature = "hydrate")]
        {
            let tick = set_interval_with_handle(
                move || now.set(Some(js_now())),
                std::time::Duration::from_secs(15),
            );
            if let Ok(handle) = tick {
                on_cleanup(move || handle.clear());
            }
        }
    });
    let at = rfc3339.clone();
    let shown = move || match now.get().and_then(|now| age_of(&at, now)) {
        Some(age) if ago => format!("{age} ago"),
        Some(age) => age,
        None => at
            .get(..16)
            .map(|s| s.replace('T', " "))
            .unwrap_or_default(),
    };
    view! {
        <time datetime=rfc3339.clone() title=rfc3339>
            {shown}
        </time>
    }
}

fn js_now() -> f64 {
    #[cfg(feature = "hydrate")]
    {
        js_sys_now()
    }
    #[cfg(not(feature = "hydrate"))]
    {
        0.0
    }
}

#[cfg(feature = "hydrate")]
fn js_sys_now() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance().map(|p| p.time_origin() + p.now()))
        .unwrap_or(0.0)
}

/// Each `time[datetime]` inside the element `id`, rendered by the server and never hydrated
/// (parts of a page read again as HTML), as its age ("5m"); the exact time stays in its title.
#[cfg(feature = "hydrate")]
pub fn show_ages(id: &str) {
    use wasm_bindgen::JsCast;
    let Ok(times) = document().query_selector_all(&format!("#{id} time[datetime]")) else {
        return;
    };
    let now = js_sys_now();
    for i in 0..times.length() {
        let Some(time) = times
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let at = time.get_attribute("datetime").unwrap_or_default();
        if let Some(age) = age_of(&at, now) {
            time.set_text_content(Some(&age));
        }
    }
}

/// How long before `now` (milliseconds since the epoch) `rfc3339` was, as [`Age`] shows it.
pub fn age_of(rfc3339: &str, now: f64) -> Option<String> {
    parse_millis(rfc3339).map(|then| age((now - then) / 1000.0))
}

/// Milliseconds since the epoch of an RFC 3339 UTC time (`2026-11-23T06:13:47.123Z`).
fn parse_millis(s: &str) -> Option<f64> {
    let (date, time) = s.split_once('T')?;
    let mut d = date.splitn(3, '-').map(|p| p.parse::<i64>());
    let (y, m, day) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let time = time.trim_end_matches('Z');
    let time = time.split(['+']).next()?;
    let mut t = time.splitn(3, ':');
    let (h, min) = (
        t.next()?.parse::<i64>().ok()?,
        t.next()?.parse::<i64>().ok()?,
    );
    let sec = seconds(t.next().unwrap_or("0"))?;
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 86_400 + h * 3600 + min * 60) * 1000 + sec) as f64)
}

/// "47" or "47.5" as milliseconds. Parsed by hand: `f64::from_str` would bring the float
/// parser and its 10 KiB table of powers into the main chunk for this one field.
fn seconds(s: &str) -> Option<i64> {
    let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
    if !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let millis = fraction
        .bytes()
        .chain(std::iter::repeat(b'0'))
        .take(3)
        .fold(0, |n, b| n * 10 + i64::from(b - b'0'));
    Some(whole.parse::<i64>().ok()? * 1000 + millis)
}

fn age(seconds: f64) -> String {
    let s = seconds.max(0.0) as i64;
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h {}m", s / 3600, (s % 3600) / 60),
        _ => format!("{}d {}h", s / 86_400, (s % 86_400) / 3600),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_become_epoch_milliseconds() {
        assert_eq!(parse_millis("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(
            parse_millis("2026-11-23T06:13:47.5Z"),
            Some(1_795_414_427_500.0)
        );
        assert_eq!(parse_millis("garbage"), None);
        assert_eq!(parse_millis("1970-01-01T00:00:01.123456Z"), Some(1_123.0));
        assert_eq!(parse_millis("1970-01-01T00:00:01.x"), None);
    }

    #[test]
    fn an_age_is_counted_from_now_and_a_bad_time_has_none() {
        assert_eq!(
            age_of("1970-01-01T00:00:00Z", 125_000.0).as_deref(),
            Some("2m")
        );
        assert_eq!(age_of("yesterday", 125_000.0), None);
    }

    #[test]
    fn ages_read_in_the_largest_useful_unit() {
        assert_eq!(age(5.0), "5s");
        assert_eq!(age(125.0), "2m");
        assert_eq!(age(3_700.0), "1h 1m");
        assert_eq!(age(90_000.0), "1d 1h");
        assert_eq!(age(-3.0), "0s");
    }
}
