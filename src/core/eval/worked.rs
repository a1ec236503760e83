//! Every judge-free figure and the judge's, on constructed runs whose expected
//! values are worked out by hand in each test (issue 36): answer match with a
//! number to the gold's precision and a stated range, DeepSearchQA's set
//! recall / precision / F1, gold-URL and domain recall with Wikipedia's URL
//! forms as one page, citation recall and precision from checked verdicts,
//! and the judge's accuracy, accuracy given attempted and F1 — each as the
//! report's vendor row sums it.

use super::{AnswerKind, JudgingRecord, Question, QuestionRecord, RunRecord, report};
use crate::core::claims::{ClaimSentence, Source};
use crate::core::eval::QuestionStatus;
use crate::core::figures::RunFigures;
use crate::core::id::{EvalId, GroupId, RunId};
use crate::core::outcome::Outcome;
use crate::core::vendor::Vendor;
use crate::core::verdict::Verdict;

const A: Vendor = Vendor::Anthropic;

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn question(id: &str, answers: &[&str], urls: &[&str], kind: AnswerKind) -> Question {
    Question {
        id: id.into(),
        question: format!("{id}?"),
        answers: strings(answers),
        urls: strings(urls),
        kind,
    }
}

fn answered(id: i64, answer: &str, cited: &[&str], claims: Vec<ClaimSentence>) -> RunRecord {
    RunRecord {
        run_id: RunId(id),
        vendor: A,
        outcome: Some(Outcome::Passed),
        answer: answer.into(),
        cited: strings(cited),
        figures: RunFigures::default(),
        claims,
    }
}

fn asked(q: Question, group: i64, run: RunRecord) -> QuestionRecord {
    QuestionRecord {
        question: q,
        group_id: Some(GroupId(group)),
        status: QuestionStatus::Done,
        runs: vec![run],
        ..QuestionRecord::default()
    }
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

#[test]
fn numbers_match_to_the_golds_precision_and_inside_a_stated_range() {
    let range = "12,400 (acceptable range: anything between 12,276 and 12,524)";
    let any = AnswerKind::Any;
    let records = vec![
        // 12,300 is inside [12,276, 12,524]: correct.
        asked(
            question("r1", &[range], &[], any),
            1,
            answered(1, "About 12,300 seats.", &[], vec![]),
        ),
        // 12,600 is outside: wrong.
        asked(
            question("r2", &[range], &[], any),
            2,
            answered(2, "It seats 12,600.", &[], vec![]),
        ),
        // 3.1416 rounds to 3.14 at the gold's last digit (0.01): correct.
        asked(
            question("p1", &["3.14"], &[], any),
            3,
            answered(3, "It is 3.1416.", &[], vec![]),
        ),
        // 331 is not 330 at the units digit: wrong.
        asked(
            question("p2", &["330"], &[], any),
            4,
            answered(4, "331 metres", &[], vec![]),
        ),
    ];
    let r = report(EvalId(1), "f", &[A], &records);
    let v = &r.vendors[0];
    // 2 correct of 4 graded.
    assert_eq!((v.correct, v.graded), (2, 4));
    assert_eq!(v.accuracy, Some(0.5));
}

#[test]
fn a_set_answer_gives_recall_precision_and_f1_and_the_row_their_means() {
    let set = |id: &str, items: &[&str]| question(id, items, &[], AnswerKind::All);
    let records = vec![
        // Gold {Testford, Mockburg, Sampleton}; said {testford, mockburg,
        // exampleville}: recall 2/3, precision 2/3, F1 2/3; not all found: wrong.
        asked(
            set("s1", &["Testford", "Mockburg", "Sampleton"]),
            1,
            answered(1, "Testford, Mockburg and Exampleville.", &[], vec![]),
        ),
        // Gold {North Example, East Placeholder}; said both and nothing else:
        // recall 1, precision 1, F1 1; correct.
        asked(
            set("s2", &["North Example", "East Placeholder"]),
            2,
            answered(2, "- North Example\n- East Placeholder", &[], vec![]),
        ),
    ];
    let r = report(EvalId(1), "f", &[A], &records);
    let q1 = &r.questions[0];
    assert!(close(q1.set_recall, 2.0 / 3.0) && close(q1.set_precision, 2.0 / 3.0));
    assert!(close(q1.set_f1, 2.0 / 3.0));
    assert_eq!(q1.correct, Some(false));
    assert_eq!(r.questions[1].correct, Some(true));
    let v = &r.vendors[0];
    // Means over the two: recall (2/3 + 1)/2 = 5/6, precision 5/6, F1 5/6.
    assert!(close(v.set_recall, 5.0 / 6.0), "{:?}", v.set_recall);
    assert!(close(v.set_precision, 5.0 / 6.0));
    assert!(close(v.set_f1, 5.0 / 6.0));
    assert_eq!((v.correct, v.graded), (1, 2));
}

#[test]
fn gold_url_and_domain_recall_read_wikipedias_forms_as_one_page() {
    let gold = [
        "https://en.wikipedia.org/wiki/Nobody's_Example_Album",
        "https://example.net/discography",
        "https://en.wikipedia.org/wiki/Example_Label",
    ];
    let records = vec![asked(
        question("u1", &["x"], &gold, AnswerKind::Any),
        1,
        answered(
            1,
            "x",
            &[
                // The first gold page, cited on the mobile host, percent-encoded.
                "https://en.m.wikipedia.org/wiki/Nobody%27s_Example_Album#Tracks",
                // Another page of the second gold's domain, behind www.
                "https://www.example.net/about",
                // Another article: same domain as the third gold, not its page.
                "https://en.wikipedia.org/wiki/Other_Label",
            ],
            vec![],
        ),
    )];
    let r = report(EvalId(1), "f", &[A], &records);
    let s = &r.questions[0];
    // Pages: 1 of 3 gold URLs cited. Domains: en.wikipedia.org (twice among
    // the gold) and example.net are all cited: 3 of 3.
    assert!(close(s.url_recall, 1.0 / 3.0), "{:?}", s.url_recall);
    assert_eq!(s.domain_recall, Some(1.0));
}

fn sentence(citations: &[Option<Verdict>]) -> ClaimSentence {
    ClaimSentence {
        text: "s".into(),
        citations: citations
            .iter()
            .map(|v| Source {
                url: "https://e.org".into(),
                verdict: *v,
                overlap: None,
            })
            .collect(),
        ..ClaimSentence::default()
    }
}

#[test]
fn citation_recall_and_precision_come_from_the_checked_verdicts() {
    use Verdict::{Found, NotFound};
    let records = vec![
        // Run 1: sentences [found], [not found], [no citation]: recall 1/3;
        // citations checked 2, supporting 1: precision 1/2.
        asked(
            question("c1", &[], &[], AnswerKind::Any),
            1,
            answered(
                1,
                "a. b. c.",
                &[],
                vec![
                    sentence(&[Some(Found)]),
                    sentence(&[Some(NotFound)]),
                    sentence(&[]),
                ],
            ),
        ),
        // Run 2: one sentence, its quote found: recall 1, precision 1.
        asked(
            question("c2", &[], &[], AnswerKind::Any),
            2,
            answered(2, "a.", &[], vec![sentence(&[Some(Found)])]),
        ),
        // Run 3: never checked: unknown, left out of the means.
        asked(
            question("c3", &[], &[], AnswerKind::Any),
            3,
            answered(3, "a.", &[], vec![sentence(&[None])]),
        ),
    ];
    let r = report(EvalId(1), "f", &[A], &records);
    assert!(close(r.questions[0].citation_recall, 1.0 / 3.0));
    assert_eq!(r.questions[0].citation_precision, Some(0.5));
    assert_eq!(r.questions[2].citation_recall, None);
    let v = &r.vendors[0];
    // Means over runs 1 and 2: recall (1/3 + 1)/2 = 2/3; precision (1/2 + 1)/2 = 3/4.
    assert!(close(v.citation_recall, 2.0 / 3.0));
    assert_eq!(v.citation_precision, Some(0.75));
    assert!(r.citation_verifier.contains("not an entailment model"));
}

#[test]
fn the_judges_grades_give_accuracy_given_attempted_and_f1() {
    let judging = |graded: i64, id: i64, reply: &str, cost: u64| JudgingRecord {
        graded: RunId(graded),
        group_id: Some(GroupId(100 + id)),
        runs: vec![RunRecord {
            run_id: RunId(id),
            vendor: Vendor::OpenAi,
            outcome: Some(Outcome::Passed),
            answer: reply.into(),
            figures: RunFigures {
                cost_micro_usd: Some(cost),
                ..RunFigures::default()
            },
            ..RunRecord::default()
        }],
    };
    let grades = [
        "GRADE: CORRECT",
        "GRADE: CORRECT",
        "GRADE: INCORRECT",
        "GRADE: NOT_ATTEMPTED",
        "no grade line",
    ];
    let records: Vec<QuestionRecord> = grades
        .iter()
        .enumerate()
        .map(|(i, reply)| {
            let n = i64::try_from(i).unwrap_or(0) + 1;
            QuestionRecord {
                judgings: vec![judging(n, 10 + n, reply, 100)],
                ..asked(
                    question(&format!("j{n}"), &["x"], &[], AnswerKind::Any),
                    n,
                    answered(n, "x", &[], vec![]),
                )
            }
        })
        .collect();
    let r = report(EvalId(1), "f", &[A], &records);
    let f = r.vendors[0].judge.expect("judged");
    // 2 correct, 1 incorrect, 1 not attempted, 1 without a grade (left out):
    // accuracy 2/4 = 0.5; given attempted 2/3; F1 = 2·0.5·(2/3)/(0.5 + 2/3)
    // = (2/3)/(7/6) = 4/7.
    assert_eq!(
        (f.correct, f.incorrect, f.not_attempted, f.ungraded),
        (2, 1, 1, 1)
    );
    assert_eq!(f.accuracy, Some(0.5));
    assert!(close(f.accuracy_given_attempted, 2.0 / 3.0));
    assert!(close(f.f1, 4.0 / 7.0));
    // Five judgings at 100 each: 500 judging, answering unpriced-free 0.
    assert_eq!(r.vendors[0].judging_cost_micro_usd, Some(500));
    assert_eq!(r.judging_cost_micro_usd, Some(500));
}
