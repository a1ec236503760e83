//! Where a question of an eval stands: `QuestionStatus`, the word
//! `eval_questions.status` stores and every view reads.

crate::core::word::word! {
    /// A question's state in its eval.
    #[derive(Default)]
    pub enum QuestionStatus ("question status") {
        /// Not run yet: `eval --resume` runs it.
        #[default]
        Pending = "pending",
        /// Its run group ran (each vendor's run, or its refusal, is recorded).
        Done = "done",
        /// Not run: the eval's dollar cap was crossed before it started.
        Skipped = "skipped",
    }
}
