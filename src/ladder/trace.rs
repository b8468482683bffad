//! What a run of the ladder reports besides the key: the steps that changed the record,
//! for [`Normalizer::explain`](crate::ladder::Normalizer::explain), and the warnings. A run
//! that does not explain pays one test per step.

use crate::iri::error::Warning;

/// One change that a rule made to a record, as reported by [`Normalizer::explain`](crate::ladder::Normalizer::explain).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The component changed (`scheme`, `host`, `path`, ...), or `record`.
    pub component: &'static str,
    /// The rule that changed it.
    pub rule: &'static str,
    /// The text before the rule.
    pub before: String,
    /// The text after the rule.
    pub after: String,
}

/// A key together with the steps that produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The key.
    pub key: String,
    /// The steps that changed something, in the order they ran.
    pub steps: Vec<Step>,
    /// The warnings about the record.
    pub warnings: Vec<Warning>,
}

/// What one run of the ladder reports besides the key: the steps, when explaining, and the
/// warnings.
pub(crate) struct Tracer<'t> {
    pub(crate) steps: Option<&'t mut Vec<Step>>,
    pub(crate) warnings: &'t mut Vec<Warning>,
}

impl Tracer<'_> {
    /// Whether steps are recorded.
    #[inline(always)]
    pub(crate) fn is_some(&self) -> bool {
        self.steps.is_some()
    }
}

/// Records a step when tracing and the text changed. Costs one test when not tracing (the
/// recording itself is out of line).
#[inline(always)]
pub(crate) fn note(
    trace: &mut Tracer<'_>,
    component: &'static str,
    rule: &'static str,
    before: &str,
    after: &str,
) {
    if let Some(steps) = trace.steps.as_deref_mut() {
        record_step(steps, component, rule, before, after);
    }
}

/// The recording part of [`note`].
#[cold]
#[inline(never)]
pub(crate) fn record_step(
    steps: &mut Vec<Step>,
    component: &'static str,
    rule: &'static str,
    before: &str,
    after: &str,
) {
    if before != after {
        steps.push(Step {
            component,
            rule,
            before: before.to_owned(),
            after: after.to_owned(),
        });
    }
}
