"""Ordinary clinical text in several languages, as clinicians write it (notes, letters, scenarios), with the
words that sit close to a model name or a leak pattern: mitral, clause, clade, lambda, "the assistant",
"human", "System:" at a line start, "AI:" on an echo report, a dose typed "4o mg", "se llama", "clase
magistral", クラウド (cloud), 百度 (to search), "data cutoff", "developed by Beck"... The leak scan's false
positives are measured on it (tests/coordinator/leak/test_leak_false_positives.py; the figures are in
docs/COORDINATORS.md). ``python -m tests.coordinator.leak.clinical_corpus`` prints the counts per class for
this corpus, the demo study and the repository's docs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

PARAGRAPHS: dict[str, list[str]] = {
    "en": [
        "Echo today: mild mitral regurgitation, no stenosis.\nAI: mild\nMR: trace\nTR: none\nLVEF 60%.",
        "Review of systems:\nSystem: cardiovascular - no chest pain.\nPlan: increase sertraline to 50 mg; "
        "the previous dose was typed as 4o mg in the referral letter.",
        "The assistant nurse noted that the child said 'human beings are dirty' and washes her hands 30 times "
        "a day. Her mother, a teaching assistant, wants a clause in the school plan about toilet breaks.",
        "We used the exposure ladder developed by Foa and the CY-BOCS; symptoms developed by age 7. CBT was "
        "developed by Aaron Beck. To my knowledge there is no family history of OCD.",
        "At the data cutoff, 40% of the cohort had responded. The lambda light chains were normal. A new clade "
        "of the virus was mentioned by the father, who works in a lab.",
        "Dear Dr Clarke,\nThank you for seeing Leo (8), who has separation anxiety. He says the user manual of "
        "his tablet scares him. Kind regards, Dr Patel",
        "Operative note\nSurgeon: Mr Hale\nAnaesthetist: Dr Omar\nProcedure: tonsillectomy, uneventful.",
        "She is anxious about her mistrial at school (the teachers' word for a failed exam); minimal change "
        "in sleep. The bedrock of treatment remains exposure with response prevention.",
        "Her mother Gemma called; Kimi, her sister, is 6. The family moved from Ward 7B to Room 12B. Stage 1B "
        "disease in the grandfather (phase 1b trial), IL-1b and TNFRSF13B normal, vitamin B7 started. I am sure "
        "this is granite-hard for them; the PI assistant booked a live-chat. I'm Gemma Chan, the ward sister.",
        "Dr Bard is the team's psychologist; the pi model of the circuit, a meta-model of care and the command "
        "model of the incident team were discussed. My training as a nurse covers OCD. I don't have the "
        "internet at home. The training data of the study (Figure 3B, Table 2b) were de-identified; type-2b.",
    ],
    "es": [
        "Soy Ana, la madre. Me llamo Ana y soy enfermera; como Ana, yo la acompaño.",
        "La paciente se llama Ana, tiene 9 años y se lava las manos veinte veces al día. Me llamo Dr. Ruiz y "
        "la llamo cada semana. Presenta una llaga en la mano derecha por el lavado.",
        "El padre asistió a una clase magistral sobre ansiedad infantil. Soplo mitral leve. La envidia hacia "
        "su hermano aparece en la entrevista.",
        "Plan: aumentar la dosis a 50 mg. El asistente social llamará a la familia. El usuario del servicio es "
        "el niño.",
    ],
    "fr": [
        "Je suis Léa, la maman. Je suis à Paris; je m'appelle Léa.",
        "Léa, 10 ans, a peur de la saleté et se lave les mains sans arrêt. Douleur à la jambe gauche après "
        "une chute. Souffle mitral discret. Le cours magistral sur les TOC a aidé les parents.",
        "L'assistante sociale a rencontré la mère. Une clause du contrat scolaire prévoit des pauses.",
    ],
    "de": [
        "Nach aktuellem Wissensstand ist eine Expositionstherapie Mittel der Wahl. Mitralklappe unauffällig. "
        "Der Junge (11) fürchtet Keime; die Mutter ist medizinische Fachangestellte.",
        "Die Assistenzärztin hat mit dem Vater gesprochen. Plan: Sertralin 25 mg.",
    ],
    "pt": ["A criança se chama Bia e tem medo de germes. O assistente social visitou a família."],
    "it": ["La bambina si lava le mani di continuo; la madre prova invidia per le altre famiglie."],
    "ru": [
        "Мама говорит, что дочь боится грязи и моет руки по двадцать раз в день. Пролапс митрального "
        "клапана исключён. Девочка смотрела передачу про ламу в зоопарке.",
        "Ассистент кафедры провёл беседу с отцом. План: сертралин 25 мг, повторный осмотр через месяц.",
    ],
    "uk": ["Мама каже, що дочка боїться бруду і миє руки двадцять разів на день."],
    "el": ["Η μητέρα λέει ότι το παιδί φοβάται τα μικρόβια και πλένει τα χέρια του συνέχεια."],
    "zh": [
        "患儿，女，9岁，反复洗手每天二十余次。父母对孩子有求必应，家庭顺应明显。母亲说她在网上百度了一下症状，"
        "担心是强迫症。建议认知行为治疗。",
        "父亲早餐给孩子买了豆包和豆浆。孩子害怕坐在副驾驶的位置。医生助手记录了病史。",
        "患兒，男，10歲，害怕細菌，每天洗手二十次。父母對孩子有求必應。",
    ],
    "ja": [
        "9歳女児。手洗いが一日二十回以上あり、母親は心配してクラウドに記録を保存している。ドラマを見ると不安が"
        "強くなる。認知行動療法を開始予定。",
        "主治医の助手が家族と面談した。患者は双子座生まれで、占いを気にしている。",
    ],
    "ko": ["9세 여아로 하루 스무 번 이상 손을 씻습니다. 어머니는 드라마를 보면 불안해진다고 합니다."],
    "ar": ["تقول الأم إن ابنتها تخاف من الأوساخ وتغسل يديها عشرين مرة في اليوم. الجو بارد في الصباح."],
    "he": ["האם מספרת שהבת מפחדת מלכלוך ושוטפת ידיים עשרים פעם ביום. למה היא בוכה בלילה?"],
    "hi": ["माँ बताती हैं कि बेटी गंदगी से डरती है और दिन में बीस बार हाथ धोती है। कल डॉक्टर से मिलना है।"],
    "th": ["แม่บอกว่าลูกสาวกลัวความสกปรกและล้างมือวันละยี่สิบครั้ง คลอดบุตรคนที่สองเมื่อปีที่แล้ว"],
}
"""Language -> paragraphs."""


def texts() -> list[str]:
    return [p for paragraphs in PARAGRAPHS.values() for p in paragraphs]


def counts(source: list[str]) -> Counter[tuple[str, str]]:
    """(class, refused/warning) -> findings in these texts, under the built-in list."""
    from wmcdp_desktop.coordinator.leak.scan import Matcher
    from wmcdp_desktop.coordinator.leak.terms import built_in_terms

    matcher = Matcher(built_in_terms())
    out: Counter[tuple[str, str]] = Counter()
    for text in source:
        for m in matcher.find(text):
            out[(m.term.leak_class, "warning" if m.term.warning else "refused")] += 1
    return out


def demo_study_texts() -> list[str]:
    from wmcdp_desktop.coordinator.study.leak_scan import study_texts
    from wmcdp_desktop.coordinator.study.loader import load_study
    from wmcdp_desktop.core.resources import demo_study_dir

    return [t.text for t in study_texts(load_study(demo_study_dir()))]


def docs_texts(root: Path) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted([*(root / "docs").glob("*.md"), root / "README.md"])]


if __name__ == "__main__":
    import sys

    root = Path(__file__).resolve().parents[3]
    for name, source in (("clinical corpus", texts()), ("demo study", demo_study_texts()), ("docs", docs_texts(root))):
        sys.stdout.write(f"{name}: {len(source)} texts, {sum(map(len, source)):,} characters\n")
        for (cls, severity), n in sorted(counts(source).items()):
            sys.stdout.write(f"  {cls} ({severity}): {n}\n")
