"""Annotators of failed rubric items (rules, LLMs, human label files) in one long-form table, the pipeline
that runs them (:func:`annotate`), agreement with gold labels (:func:`agree_with_gold`), agreement between them (Cohen's kappa, Krippendorff's alpha, confusion,
bootstrap intervals), and the masked-recovery experiment."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.annotation._agreement import LABEL_FILE_COLUMNS as LABEL_FILE_COLUMNS
    from rtlab.annotation._agreement import agreement_report as agreement_report
    from rtlab.annotation._agreement import category_scores as category_scores
    from rtlab.annotation._agreement import check_labels as check_labels
    from rtlab.annotation._agreement import cohen_kappa_score as cohen_kappa_score
    from rtlab.annotation._agreement import coincidence_matrix as coincidence_matrix
    from rtlab.annotation._agreement import confusion_matrix as confusion_matrix
    from rtlab.annotation._agreement import kappa_against as kappa_against
    from rtlab.annotation._agreement import krippendorff_alpha as krippendorff_alpha
    from rtlab.annotation._agreement import load_labels as load_labels
    from rtlab.annotation._agreement import pair_key as pair_key
    from rtlab.annotation._agreement import pairwise_kappa as pairwise_kappa
    from rtlab.annotation._agreement import percent_agreement as percent_agreement
    from rtlab.annotation._agreement import reliability_data as reliability_data
    from rtlab.annotation._annotators import DEFAULT_BUDGET as DEFAULT_BUDGET
    from rtlab.annotation._annotators import FAILED as FAILED
    from rtlab.annotation._annotators import LABEL_COLUMNS as LABEL_COLUMNS
    from rtlab.annotation._annotators import NON_LABELS as NON_LABELS
    from rtlab.annotation._annotators import OPTIONAL_LABEL_COLUMNS as OPTIONAL_LABEL_COLUMNS
    from rtlab.annotation._annotators import PROMPT_VERSIONS as PROMPT_VERSIONS
    from rtlab.annotation._annotators import REFUSED as REFUSED
    from rtlab.annotation._annotators import RULE_ANNOTATOR as RULE_ANNOTATOR
    from rtlab.annotation._annotators import UNPARSABLE as UNPARSABLE
    from rtlab.annotation._annotators import Answer as Answer
    from rtlab.annotation._annotators import ItemContext as ItemContext
    from rtlab.annotation._annotators import LLMAnnotation as LLMAnnotation
    from rtlab.annotation._annotators import LLMAnnotator as LLMAnnotator
    from rtlab.annotation._annotators import PromptVersion as PromptVersion
    from rtlab.annotation._annotators import annotate_llm as annotate_llm
    from rtlab.annotation._annotators import annotator_grid as annotator_grid
    from rtlab.annotation._annotators import build_messages as build_messages
    from rtlab.annotation._annotators import first_requests as first_requests
    from rtlab.annotation._annotators import item_context as item_context
    from rtlab.annotation._annotators import item_contexts as item_contexts
    from rtlab.annotation._annotators import long_form as long_form
    from rtlab.annotation._annotators import parse_answer as parse_answer
    from rtlab.annotation._annotators import read_human_labels as read_human_labels
    from rtlab.annotation._annotators import rule_labels as rule_labels
    from rtlab.annotation._annotators import system_prompt as system_prompt
    from rtlab.annotation._annotators import user_prompt as user_prompt
    from rtlab.annotation._breakdowns import GoldComparison as GoldComparison
    from rtlab.annotation._breakdowns import annotator_diagnosis as annotator_diagnosis
    from rtlab.annotation._breakdowns import compare_breakdowns as compare_breakdowns
    from rtlab.annotation._breakdowns import rules_against_gold as rules_against_gold
    from rtlab.annotation._gold import GOLD as GOLD
    from rtlab.annotation._gold import GROUPINGS as GROUPINGS
    from rtlab.annotation._gold import By as By
    from rtlab.annotation._gold import GoldAgreement as GoldAgreement
    from rtlab.annotation._gold import agree_with_gold as agree_with_gold
    from rtlab.annotation._gold import annotator_names as annotator_names
    from rtlab.annotation._gold import majority_labels as majority_labels
    from rtlab.annotation._gold import read_annotator_labels as read_annotator_labels
    from rtlab.annotation._gold import read_gold_labels as read_gold_labels
    from rtlab.annotation._pipeline import Annotation as Annotation
    from rtlab.annotation._pipeline import annotate as annotate
    from rtlab.annotation._pipeline import sample_at_most as sample_at_most
    from rtlab.annotation._propose_llm import PROPOSE_PROMPT as PROPOSE_PROMPT
    from rtlab.annotation._propose_llm import LLMProposer as LLMProposer
    from rtlab.annotation._propose_llm import parse_proposals as parse_proposals
    from rtlab.annotation._recovery import CONDITIONS as CONDITIONS
    from rtlab.annotation._recovery import MASK as MASK
    from rtlab.annotation._recovery import OVER_CONTEXT as OVER_CONTEXT
    from rtlab.annotation._recovery import RECOVERY_COLUMNS as RECOVERY_COLUMNS
    from rtlab.annotation._recovery import RECOVERY_CONTEXT_CHARS as RECOVERY_CONTEXT_CHARS
    from rtlab.annotation._recovery import RECOVERY_PROMPT as RECOVERY_PROMPT
    from rtlab.annotation._recovery import SAMPLES as SAMPLES
    from rtlab.annotation._recovery import Condition as Condition
    from rtlab.annotation._recovery import Prompt as Prompt
    from rtlab.annotation._recovery import Recovery as Recovery
    from rtlab.annotation._recovery import RecoveryItem as RecoveryItem
    from rtlab.annotation._recovery import Sample as Sample
    from rtlab.annotation._recovery import build_prompt as build_prompt
    from rtlab.annotation._recovery import first_recovery_requests as first_recovery_requests
    from rtlab.annotation._recovery import mask_value as mask_value
    from rtlab.annotation._recovery import paper_sample as paper_sample
    from rtlab.annotation._recovery import parse_value as parse_value
    from rtlab.annotation._recovery import recover as recover
    from rtlab.annotation._recovery import recovery_annotators as recovery_annotators
    from rtlab.annotation._recovery import recovery_figures as recovery_figures
    from rtlab.annotation._recovery import recovery_items as recovery_items
    from rtlab.annotation._recovery import recovery_summary as recovery_summary
    from rtlab.annotation._recovery import score as score

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._annotators": (
            "DEFAULT_BUDGET",
            "FAILED",
            "LABEL_COLUMNS",
            "NON_LABELS",
            "OPTIONAL_LABEL_COLUMNS",
            "PROMPT_VERSIONS",
            "PromptVersion",
            "REFUSED",
            "RULE_ANNOTATOR",
            "UNPARSABLE",
            "Answer",
            "ItemContext",
            "LLMAnnotation",
            "LLMAnnotator",
            "annotate_llm",
            "annotator_grid",
            "build_messages",
            "first_requests",
            "item_context",
            "item_contexts",
            "long_form",
            "parse_answer",
            "read_human_labels",
            "rule_labels",
            "system_prompt",
            "user_prompt",
        ),
        "._pipeline": ("Annotation", "annotate", "sample_at_most"),
        "._breakdowns": ("GoldComparison", "annotator_diagnosis", "compare_breakdowns", "rules_against_gold"),
        "._gold": (
            "GOLD",
            "GROUPINGS",
            "By",
            "GoldAgreement",
            "agree_with_gold",
            "annotator_names",
            "majority_labels",
            "read_annotator_labels",
            "read_gold_labels",
        ),
        "._agreement": (
            "LABEL_FILE_COLUMNS",
            "agreement_report",
            "category_scores",
            "check_labels",
            "cohen_kappa_score",
            "coincidence_matrix",
            "confusion_matrix",
            "kappa_against",
            "krippendorff_alpha",
            "load_labels",
            "pair_key",
            "pairwise_kappa",
            "percent_agreement",
            "reliability_data",
        ),
        "._propose_llm": ("PROPOSE_PROMPT", "LLMProposer", "parse_proposals"),
        "._recovery": (
            "CONDITIONS",
            "Condition",
            "RECOVERY_COLUMNS",
            "RECOVERY_CONTEXT_CHARS",
            "OVER_CONTEXT",
            "SAMPLES",
            "Sample",
            "paper_sample",
            "MASK",
            "RECOVERY_PROMPT",
            "Recovery",
            "RecoveryItem",
            "Prompt",
            "build_prompt",
            "first_recovery_requests",
            "mask_value",
            "parse_value",
            "recover",
            "recovery_annotators",
            "recovery_figures",
            "recovery_items",
            "recovery_summary",
            "score",
        ),
    },
)
