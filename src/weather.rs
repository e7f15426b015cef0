//! The weather executor: geocode a place, then read its current weather, from an
//! Open-Meteo-compatible HTTP API (both base URLs configurable).
//!
//! Both steps are reads: they change nothing in the world, so a failure is `notApplied` and the
//! operation ends `blocked` with a reason a person can act on.

use crate::config::WeatherConfig;
use crate::executor::{begin, blocked, end, BoxFuture, ExecOutcome, Executor, RunContext};
use crate::model::{Goal, Operation, Question, QuestionKind, StepResult, Target};
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;
use std::time::Duration;

pub struct WeatherExecutor {
    http: reqwest::Client,
    geocoding_url: String,
    forecast_url: String,
    timeout: Duration,
}

impl WeatherExecutor {
    pub fn new(config: &WeatherConfig) -> Result<WeatherExecutor, reqwest::Error> {
        let timeout = Duration::from_millis(config.timeout_ms);
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout)
            .user_agent(concat!("circe/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(WeatherExecutor {
            http,
            geocoding_url: config.geocoding_url.trim_end_matches('/').to_string(),
            forecast_url: config.forecast_url.trim_end_matches('/').to_string(),
            timeout,
        })
    }

    async fn get<T: serde::de::DeserializeOwned>(
        &self,
        url: &str,
        query: &[(&str, String)],
    ) -> Result<T, String> {
        let response = self
            .http
            .get(url)
            .query(query)
            .send()
            .await
            .map_err(|e| self.describe(e))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("the weather service answered HTTP {status}"));
        }
        let body = response.bytes().await.map_err(|e| self.describe(e))?;
        serde_json::from_slice(&body)
            .map_err(|e| format!("the weather service sent data Circe could not read ({e})"))
    }

    fn describe(&self, e: reqwest::Error) -> String {
        if e.is_timeout() {
            format!(
                "the weather service did not answer within {} ms",
                self.timeout.as_millis()
            )
        } else if e.is_connect() {
            "the weather service could not be reached".to_string()
        } else {
            format!("the weather request failed ({e})")
        }
    }

    async fn run_steps(&self, op: &Operation, cx: &RunContext<'_>) -> Result<ExecOutcome, String> {
        let place = op.arguments.get("place").cloned().unwrap_or_default();
        if place.trim().is_empty() {
            return Ok(ExecOutcome::Blocked {
                reason: "no place was given".into(),
            });
        }

        let step = step_with(cx, "find place", [("place", place.clone())]).await?;
        let query = [
            ("name", place.clone()),
            ("count", "1".into()),
            ("language", "en".into()),
            ("format", "json".into()),
        ];
        let found: Result<Geocoding, String> = match self
            .read(
                cx,
                self.get(&format!("{}/v1/search", self.geocoding_url), &query),
            )
            .await
        {
            Some(r) => r,
            None => return stopped(cx, step).await,
        };
        let found = match found {
            Ok(g) => g,
            Err(reason) => return blocked(cx, step, reason).await,
        };
        let Some(hit) = found.results.into_iter().flatten().next() else {
            end(cx, step, StepResult::NotApplied, json!({ "found": 0 })).await?;
            // A place the geocoder cannot find is asked again, never accepted as found.
            return Ok(ExecOutcome::NeedsInput {
                question: place_again(op, &place),
            });
        };
        let name = hit.display_name();
        end(
            cx,
            step,
            StepResult::Applied,
            json!({ "name": name, "latitude": hit.latitude, "longitude": hit.longitude }),
        )
        .await?;

        let step = step_with(
            cx,
            "fetch forecast",
            [
                ("latitude", hit.latitude.to_string()),
                ("longitude", hit.longitude.to_string()),
            ],
        )
        .await?;
        let query = [
            ("latitude", hit.latitude.to_string()),
            ("longitude", hit.longitude.to_string()),
            (
                "current",
                "temperature_2m,weather_code,wind_speed_10m".into(),
            ),
            ("daily", "temperature_2m_max,temperature_2m_min".into()),
            ("forecast_days", "1".into()),
            ("timezone", "auto".into()),
        ];
        let forecast: Result<Forecast, String> = match self
            .read(
                cx,
                self.get(&format!("{}/v1/forecast", self.forecast_url), &query),
            )
            .await
        {
            Some(r) => r,
            None => return stopped(cx, step).await,
        };
        let forecast = match forecast {
            Ok(f) => f,
            Err(reason) => return blocked(cx, step, reason).await,
        };
        let summary = forecast.summary(&name);
        let data = json!({
            "place": name,
            "temperatureC": forecast.current.temperature_2m,
            "weatherCode": forecast.current.weather_code,
            "conditions": conditions(forecast.current.weather_code),
            "windKmh": forecast.current.wind_speed_10m,
            "time": forecast.current.time,
        });
        end(cx, step, StepResult::Applied, data.clone()).await?;
        Ok(ExecOutcome::Completed { summary, data })
    }

    /// Await a read unless the operation is stopped first (`None`).
    async fn read<T>(
        &self,
        cx: &RunContext<'_>,
        fut: impl std::future::Future<Output = T>,
    ) -> Option<T> {
        tokio::select! {
            biased;
            _ = cx.cancel.cancelled() => None,
            v = fut => Some(v),
        }
    }
}

async fn stopped(cx: &RunContext<'_>, step: u32) -> Result<ExecOutcome, String> {
    end(cx, step, StepResult::NotApplied, json!({ "stopped": true })).await?;
    Ok(ExecOutcome::Stopped)
}

async fn step_with<const N: usize>(
    cx: &RunContext<'_>,
    action: &str,
    args: [(&str, String); N],
) -> Result<u32, String> {
    let arguments: BTreeMap<String, String> =
        args.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    begin(cx, action, arguments, None, false).await
}

impl Executor for WeatherExecutor {
    fn goal(&self) -> Goal {
        Goal::Weather
    }

    fn run<'a>(
        &'a self,
        operation: &'a Operation,
        cx: RunContext<'a>,
    ) -> BoxFuture<'a, ExecOutcome> {
        Box::pin(async move {
            match self.run_steps(operation, &cx).await {
                Ok(outcome) => outcome,
                // The journal failed: what happened was not recorded, so it is not known.
                Err(e) => ExecOutcome::Unknown { reason: e },
            }
        })
    }
}

#[derive(Debug, Deserialize)]
struct Geocoding {
    results: Option<Vec<Place>>,
}

#[derive(Debug, Deserialize)]
struct Place {
    name: String,
    latitude: f64,
    longitude: f64,
    #[serde(default)]
    country: Option<String>,
    #[serde(default)]
    admin1: Option<String>,
}

impl Place {
    fn display_name(&self) -> String {
        let mut parts = vec![self.name.clone()];
        for extra in [&self.admin1, &self.country].into_iter().flatten() {
            if !parts.contains(extra) {
                parts.push(extra.clone());
            }
        }
        parts.join(", ")
    }
}

#[derive(Debug, Deserialize)]
struct Forecast {
    current: Current,
    #[serde(default)]
    daily: Option<Daily>,
}

#[derive(Debug, Deserialize)]
struct Current {
    #[serde(default)]
    time: Option<String>,
    temperature_2m: f64,
    weather_code: u32,
    #[serde(default)]
    wind_speed_10m: Option<f64>,
}

#[derive(Debug, Deserialize)]
struct Daily {
    #[serde(default)]
    temperature_2m_max: Vec<f64>,
    #[serde(default)]
    temperature_2m_min: Vec<f64>,
}

impl Forecast {
    fn summary(&self, place: &str) -> String {
        let c = &self.current;
        let mut s = format!(
            "{place}: {:.0} °C, {}",
            c.temperature_2m,
            conditions(c.weather_code)
        );
        if let Some(w) = c.wind_speed_10m {
            s.push_str(&format!(", wind {w:.0} km/h"));
        }
        if let Some(d) = &self.daily {
            if let (Some(lo), Some(hi)) =
                (d.temperature_2m_min.first(), d.temperature_2m_max.first())
            {
                s.push_str(&format!(" (today {lo:.0} to {hi:.0} °C)"));
            }
        }
        s
    }
}

/// WMO weather interpretation codes, as Open-Meteo documents them.
pub fn conditions(code: u32) -> &'static str {
    match code {
        0 => "clear sky",
        1 => "mainly clear",
        2 => "partly cloudy",
        3 => "overcast",
        45 | 48 => "fog",
        51 | 53 | 55 => "drizzle",
        56 | 57 => "freezing drizzle",
        61 | 63 | 65 => "rain",
        66 | 67 => "freezing rain",
        71 | 73 | 75 | 77 => "snow",
        80..=82 => "rain showers",
        85 | 86 => "snow showers",
        95 => "thunderstorm",
        96 | 99 => "thunderstorm with hail",
        _ => "unknown conditions",
    }
}

/// The place question again, after the geocoder found nothing for `place`.
fn place_again(op: &Operation, place: &str) -> Question {
    let owner = match &op.target {
        Target::App(t) => t.node.clone(),
        Target::Browser(b) => b.target.node.clone(),
        Target::Unresolved => String::new(),
    };
    Question {
        kind: QuestionKind::Place,
        slot: "place".into(),
        prompt: format!("I could not find a place called \"{place}\". Which city?"),
        known_arguments: op.arguments.clone(),
        choices: Vec::new(),
        owner,
        expires_at: crate::clock::now() + crate::interaction::QUESTION_TTL_MS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_reads_well() {
        let f: Forecast = serde_json::from_value(json!({
            "current": {"time": "2026-12-02T10:00", "temperature_2m": 31.24, "weather_code": 0, "wind_speed_10m": 9.4},
            "daily": {"temperature_2m_max": [35.1], "temperature_2m_min": [24.0]}
        }))
        .unwrap();
        assert_eq!(
            f.summary("Ahmedabad, Gujarat, India"),
            "Ahmedabad, Gujarat, India: 31 °C, clear sky, wind 9 km/h (today 24 to 35 °C)"
        );
    }

    #[test]
    fn garbage_is_not_a_forecast() {
        assert!(
            serde_json::from_value::<Forecast>(json!({"current": {"temperature_2m": "hot"}}))
                .is_err()
        );
        assert!(serde_json::from_value::<Forecast>(json!({"hourly": {}})).is_err());
    }

    #[test]
    fn place_names_skip_repeats() {
        let p = Place {
            name: "Pune".into(),
            latitude: 18.5,
            longitude: 73.8,
            country: Some("India".into()),
            admin1: Some("Maharashtra".into()),
        };
        assert_eq!(p.display_name(), "Pune, Maharashtra, India");
        let p = Place {
            name: "Singapore".into(),
            latitude: 1.3,
            longitude: 103.8,
            country: Some("Singapore".into()),
            admin1: None,
        };
        assert_eq!(p.display_name(), "Singapore");
    }
}
