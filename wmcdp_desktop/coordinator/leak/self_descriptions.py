"""What a model says about itself: its knowledge cut-off, who made or trained it, that it is a language
model (docs/COORDINATORS.md, "The leak scan").

A knowledge cut-off ("my knowledge cutoff is October 2023", "as of my last update") dates the model, and
"developed by…", "trained by…", "I am an AI assistant made by…" name or narrow down its maker even when
the name itself is paraphrased: both are refused. A bare "as an AI language model" or "I am a large
language model" names nobody but is typical of some models: a warning. Patterns in English, Spanish,
French, German, Portuguese, Italian, Russian, Chinese (both scripts), Japanese, Korean, Arabic, Hindi and
Hebrew, written as :mod:`phrases`.
"""

from __future__ import annotations

import re

from wmcdp_desktop.coordinator.leak.phrases import compile_phrase

CUTOFF = "dates the model (its knowledge cut-off)"
MAKER = "says who made or trained the model"
AI = "the model describing itself as one (typical of some models)"

# (what is reported, what it reveals, warning, written without spaces between words, pattern)
PATTERNS: list[tuple[str, str, bool, bool, str]] = [
    # English
    ("knowledge cut-off", CUTOFF, False, False, "(knowledge|training|training data|knowledge base) cut-off"),
    ("knowledge cut-off", CUTOFF, False, False,
     "as of my (last|latest|most recent|final) (knowledge |training |data )?(update|training)"),
    ("knowledge cut-off", CUTOFF, False, False,
     "(since|after|until) my (last|latest|most recent) (knowledge|training) (update|cut-off)"),
    ("knowledge cut-off", CUTOFF, False, False,
     "my (training data|training|knowledge|knowledge base) (only )?(goes|extends|runs|is current|is up to date|"
     "was last updated|is limited|stops|ends|covers events) (up to|until|through|to|till|as of|in|at)"),
    ("knowledge cut-off", CUTOFF, False, False, "(trained|training) on data (up to|until|through|from before)"),
    ("knowledge cut-off", CUTOFF, False, False,
     "i (do not|don't|cannot|can't) have (access to )?(information|data|knowledge) (about events )?(after|beyond|past|"
     "since) my"),
    ("developed by", MAKER, False, False,
     "(i|i'm|i am) (was |have been |am |being )?(developed|created|built|designed|programmed|fine-tuned|"
     "released) by"),
    ("trained by", MAKER, True, False, "(i|i'm|i am) (was |have been |am |being )?(trained|made|owned) by"),
    ("developed by", MAKER, False, False,
     "(language model|ai model|ai assistant|ai system|ai chatbot|chatbot|virtual assistant|llm|ai) "
     "(developed|trained|created|made|built|designed|programmed|fine-tuned|released) by"),
    ("developed by", MAKER, False, False,
     "(a|an) (large )?language model (from|by|of)"),
    ("as a language model", AI, True, False,
     "(as|i am|i'm) (a|an) (large )?(ai |artificial intelligence )?language model"),
    ("as a language model", AI, True, False,
     "(as|i am|i'm) (a|an) (ai|artificial intelligence)( assistant| model| chatbot| system)?"),
    ("knowledge cut-off", CUTOFF, False, False,
     "i was (last )?(updated|trained) (in|on|up to|until|through) (january|february|march|april|may|june|july|"
     "august|september|october|november|december|early|mid|late|2021|2022|2023|2024|2025|2026|2027)"),
    ("knowledge cut-off", CUTOFF, False, False, "as of my (training|training data|knowledge cut-off)"),
    ("knowledge cut-off", CUTOFF, True, False,
     "my (data|information) (only )?(goes|extends|runs|is current) (up to|until|through|as of)"),
    ("what the model cannot do", AI, True, False,
     "my (information|knowledge) (may|might|could) be (outdated|out of date|out-of-date|incomplete)"),
    ("what the model cannot do", AI, True, False,
     "i (do not|don't|cannot|can't|am unable to|am not able to) (have )?(browse|browsing|access to the internet|"
     "internet access|real-time (information|data|access)|access to real-time|search the (web|internet))"),
    ("what the model cannot do", AI, True, False, "i (do not|don't) have (the ability to browse|browsing)"),
    ("its training", AI, True, False, "my training data"),
    ("its makers", AI, True, False, "my (creators|developers|programmers)"),
    ("as a language model", AI, True, False, "i'm (just|only) (an|a) (ai|language model|chatbot|bot|program)"),
    ("as a language model", AI, True, False, "(i am|i'm) (just |only )?(a|an|your) (virtual|digital) assistant"),
    # Spanish, Portuguese
    ("knowledge cut-off", CUTOFF, False, False,
     "(mi |la )?fecha de corte (de |de mi |de mis )?(conocimiento|conocimientos|entrenamiento)"),
    ("knowledge cut-off", CUTOFF, False, False,
     "(mi conocimiento|mis conocimientos|mis datos de entrenamiento|mi entrenamiento) (solo )?(llega|llegan|se "
     "extiende|se extienden|va|van|esta actualizado|abarca|abarcan) hasta"),
    ("knowledge cut-off", CUTOFF, False, False, "hasta mi (ultima|mas reciente) actualizacion"),
    ("knowledge cut-off", CUTOFF, False, False,
     "(meu conhecimento|meus conhecimentos|meus dados de treinamento) (vai|vao|se estende|se estendem) ate"),
    ("developed by", MAKER, False, False,
     "(fui|he sido|soy un modelo|soy una ia|soy un asistente) (desarrollado|desarrollada|entrenado|entrenada|creado|"
     "creada|disenado|disenada|programado|programada) por"),
    ("developed by", MAKER, False, False,
     "(modelo de lenguaje|asistente de ia|modelo de ia|asistente virtual|modelo de linguagem) (desarrollado|entrenado|"
     "creado|desenvolvido|treinado|criado) (por|pela|pelo)"),
    ("developed by", MAKER, False, False,
     "fui (desenvolvido|desenvolvida|treinado|treinada|criado|criada) (por|pela|pelo)"),
    ("as a language model", AI, True, False,
     "(soy|como) (un |una )?(gran )?(modelo de lenguaje|modelo de ia|inteligencia artificial|ia)"),
    ("as a language model", AI, True, False, "(sou|como) (um |uma )?(modelo de linguagem|inteligencia artificial)"),
    # French
    ("knowledge cut-off", CUTOFF, False, False,
     "(ma date|la date) (limite|de coupure) (de mes|des) (connaissances|donnees)"),
    ("knowledge cut-off", CUTOFF, False, False,
     "(mes connaissances|mes donnees d'entrainement) (s'arretent|vont jusqu|datent|s'etendent jusqu)"),
    ("developed by", MAKER, False, False,
     "(j'ai ete|je suis un modele|je suis une ia) (developpe|developpee|entraine|entrainee|cree|creee|concu|concue|"
     "forme|formee) par"),
    ("developed by", MAKER, False, False,
     "(modele de langage|assistant ia|ia) (developpe|developpee|entraine|entrainee|cree|creee|concu|concue) par"),
    ("as a language model", AI, True, False,
     "(je suis|en tant que|en tant qu') (un |une )?(grand )?(modele de langage|ia|intelligence artificielle|assistant ia)"),
    # German
    ("knowledge cut-off", CUTOFF, False, False,
     "(mein wissensstand|meine trainingsdaten|mein wissen) (reicht|reichen|endet|enden|geht|gehen|ist) (nur )?(bis|auf "
     "dem stand)"),
    ("knowledge cut-off", CUTOFF, False, False, "(wissensstichtag|wissens-cutoff|trainingsstichtag)"),
    ("developed by", MAKER, False, False,
     "ich wurde von…(entwickelt|trainiert|erstellt|programmiert|geschaffen)"),
    ("developed by", MAKER, False, False,
     "(sprachmodell|ki-assistent|ki-modell|ki-system) (entwickelt|trainiert|erstellt) von"),
    ("as a language model", AI, True, False,
     "(ich bin|als) (ein |eine )?(grosses |grosse )?(ki-sprachmodell|sprachmodell|ki-assistent|ki)"),
    # Italian
    ("knowledge cut-off", CUTOFF, False, False,
     "le mie conoscenze (si fermano|arrivano|si estendono) (a|al|fino)"),
    ("developed by", MAKER, False, False,
     "sono stato (sviluppato|addestrato|creato|progettato) da"),
    ("as a language model", AI, True, False, "(sono|come) (un )?(modello linguistico|modello di linguaggio)"),
    # Russian
    ("knowledge cut-off", CUTOFF, False, False,
     "мои (знания|данные) (ограничены|актуальны|заканчиваются|обновлены|охватывают)"),
    ("knowledge cut-off", CUTOFF, False, False, "дата (отсечения|окончания|среза) (моих )?(знаний|данных)"),
    ("developed by", MAKER, False, False,
     "я (был |была |было )?(разработан|разработана|создан|создана) (компанией|командой|как|в)"),
    ("as a language model", AI, True, False,
     "(я|как) (большая )?(языковая модель|ии|искусственный интеллект|ии-ассистент)"),
    # Chinese (simplified and traditional)
    ("knowledge cut-off", CUTOFF, False, True, "(知识|知識|训练数据|訓練數據|訓練資料)(截止|截至|更新到|更新至)"),
    ("knowledge cut-off", CUTOFF, False, True, "截至我(最后|最後)一次更新"),
    ("developed by", MAKER, False, True, "我是由⋯(开发|開發|训练|訓練|创建|創建|打造|研发|研發|推出)"),
    ("developed by", MAKER, False, True, "(由|被)⋯(开发|開發|训练|訓練)的(人工智能|ai|语言模型|語言模型|大模型|助手)"),
    ("as a language model", AI, True, True,
     "(我是|作为|作為)(一个|一個|一款|一种|一種)?(人工智能|ai)?(大型|大)?(语言模型|語言模型|助手|模型)"),
    # Japanese
    ("knowledge cut-off", CUTOFF, False, True, "(知識|トレーニングデータ|学習データ)(の|は)⋯(カットオフ|まで)"),
    ("developed by", MAKER, False, True, "(私|わたし)は⋯によって(開発|訓練|トレーニング|作成|作ら|構築)"),
    ("as a language model", AI, True, True, "(ai|人工知能|大規模)?言語モデル(として|です)"),
    # Korean
    ("knowledge cut-off", CUTOFF, False, True, "(제 지식은|학습 데이터는|훈련 데이터는)⋯까지"),
    ("developed by", MAKER, False, True, "저는⋯(에서|에 의해) (개발|훈련|학습|만들어|만든)"),
    ("as a language model", AI, True, True, "(ai |인공지능 )?언어 모델(로서|입니다)"),
    # Arabic, Hindi, Hebrew
    ("knowledge cut-off", CUTOFF, False, False, "(معرفتي|بيانات تدريبي) (تمتد|محدودة|تنتهي|تصل)"),
    ("developed by", MAKER, False, False, "تم (تطويري|تدريبي|إنشائي) (بواسطة|من قبل|من)"),
    ("as a language model", AI, True, False, "(أنا |ك)?نموذج لغوي"),
    ("knowledge cut-off", CUTOFF, False, False, "मेरा ज्ञान⋯तक"),
    ("developed by", MAKER, False, False, "मुझे⋯द्वारा (विकसित|प्रशिक्षित|बनाया)"),
    ("as a language model", AI, True, False, "(एक )?भाषा मॉडल (हूँ|हूं|के रूप में)"),
    ("developed by", MAKER, False, False, "(פותחתי|אומנתי|נוצרתי) (על ידי|ע\"י|בידי)"),
    ("as a language model", AI, True, False, "אני מודל שפה"),
]


WORD_START, WORD_END = r"(?<!\w)", r"(?!\w)"


def compiled() -> list[tuple[str, str, bool, bool, re.Pattern[str], frozenset[str]]]:
    """(what is reported, what it reveals, warning, written without spaces, regex over the normal form,
    anchors) of every pattern; a spaced pattern matches whole words, and its anchors are whole words."""
    out = []
    for what, reveals, warning, unspaced, pattern in PATTERNS:
        body, anchors = compile_phrase(pattern)
        out.append((what, reveals, warning, unspaced,
                    re.compile(body if unspaced else WORD_START + body + WORD_END), anchors))
    return out
