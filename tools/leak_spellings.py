"""The hand-curated source of the leak scan's table of names in other scripts (``python -m
tools.make_leak_tables`` turns it into ``resources/leak/transliterations.json``; docs/COORDINATORS.md, "The
leak scan").

For each name of the built-in list (``wmcdp_desktop/coordinator/leak/terms.py``: ``BUILT_IN`` and
``SHORT_FORMS``, spelled exactly as there), the spellings people conventionally write in each language: the
spelling the press and Wikipedia of that language use, and the other spellings in common use where people
write it differently (``Клод`` and ``Клауд``; ``クロード`` and ``クラウド``; ``克劳德`` and ``克洛德``). The
generator adds what follows from rules (``tools/make_leak_tables.py``): traditional Chinese (OpenCC),
Russian and Ukrainian case endings, Ukrainian letters, hiragana for katakana, Persian letters for Arabic
ones, Hebrew without the geresh.

Languages: ``ru`` Russian (Cyrillic), ``uk`` Ukrainian, ``bg`` Bulgarian, ``el`` Greek, ``ja`` Japanese,
``zh`` Chinese (simplified; the traditional forms are generated), ``ko`` Korean, ``ar`` Arabic, ``fa``
Persian, ``he`` Hebrew, ``hi`` Hindi (Devanagari), ``th`` Thai.

A spelling that is also an ordinary word of its language is listed in :data:`ORDINARY` with what it
means: it is found as a *warning* (the coordinator looks, and accepts it when it is the ordinary word).
Names whose Latin form is itself searched only in context (Google, Meta, Amazon, Bing, Pi, Phi, Cohere,
Command, Gemma, Kimi...) have no entries of their own: their spellings in other scripts are as ordinary
(``погуглить``, ``谷歌一下``, ``有求必应``); :data:`LEFT_OUT` lists the spellings deliberately not searched,
and why.
"""

from __future__ import annotations

SCRIPTS: dict[str, str] = {
    "ru": "Cyrillic (Russian)", "uk": "Cyrillic (Ukrainian)", "bg": "Cyrillic (Bulgarian)", "el": "Greek",
    "ja": "Japanese", "zh": "Chinese (simplified)", "zh-Hant": "Chinese (traditional)", "ko": "Korean (Hangul)",
    "ar": "Arabic", "fa": "Persian (Arabic script)", "he": "Hebrew", "hi": "Devanagari (Hindi)", "th": "Thai",
}
"""The language codes of :data:`SPELLINGS` and the scripts findings name."""

SPELLINGS: dict[str, dict[str, list[str]]] = {
    "OpenAI": {
        "ru": ["ОпенЭйАй", "Опен ЭйАй", "Опен Эй Ай", "ОпенАИ", "Оупен Эй Ай"],
        "uk": ["ОпенЕйАй", "Опен Ей Ай"],
        "el": ["Όπεν Έι Άι"],
        "ja": ["オープンAI", "オープンエーアイ", "オープン・エーアイ"],
        "zh": ["开放人工智能", "开放AI"],
        "ko": ["오픈AI", "오픈에이아이", "오픈 에이아이"],
        "ar": ["أوبن إيه آي", "أوبن أي آي", "اوبن ايه اي", "أوبن آي", "أوبن إيه أي"],
        "he": ["אופן איי איי", "אופןAI", "אופן AI"],
        "hi": ["ओपनएआई", "ओपन एआई", "ओपन ए आई"],
        "th": ["โอเพนเอไอ", "โอเพ่นเอไอ"],
    },
    "ChatGPT": {
        "ru": ["ЧатГПТ", "Чат ГПТ", "ЧатДжиПиТи", "Чат Джи Пи Ти", "Чат-Джи-Пи-Ти", "ЧатЖПТ"],
        "bg": ["ЧатДжиПиТи"],
        "el": ["Τσατ Τζι Πι Τι", "ΤσατGPT"],
        "ja": ["チャットGPT", "チャットジーピーティー", "チャット・ジーピーティー"],
        "zh": ["聊天GPT"],
        "ko": ["챗GPT", "챗지피티", "챗 지피티", "쳇GPT", "쳇지피티"],
        "ar": ["شات جي بي تي", "تشات جي بي تي", "شات جى بى تى", "شات GPT", "تشات GPT"],
        "he": ["צ'אט ג'י פי טי", "צ'אט GPT", "צ'אטGPT", "צ'אט ג'יפיטי"],
        "hi": ["चैटजीपीटी", "चैट जीपीटी", "चैट-जीपीटी"],
        "th": ["แชทจีพีที", "แชตจีพีที", "แชท GPT"],
    },
    "GPT": {
        "ru": ["ДжиПиТи", "Джи Пи Ти", "ГПТ"],
        "ja": ["ジーピーティー"],
        "ko": ["지피티"],
        "ar": ["جي بي تي", "جى بى تى"],
        "he": ["ג'י פי טי", "ג'יפיטי"],
        "hi": ["जीपीटी"],
        "th": ["จีพีที"],
    },
    "Anthropic": {
        "ru": ["Антропик", "Энтропик"],
        "el": ["Άνθρωπικ", "Άνθροπικ"],
        "ja": ["アンスロピック", "アンソロピック", "アントロピック"],
        "zh": ["安索普", "安思睿"],
        "ko": ["앤트로픽", "앤스로픽", "안트로픽"],
        "ar": ["أنثروبيك", "أنثروبك", "انثروبيك"],
        "fa": ["آنتروپیک"],
        "he": ["אנתרופיק", "אנטרופיק"],
        "hi": ["एंथ्रोपिक", "एन्थ्रोपिक", "एंथ्रॉपिक"],
        "th": ["แอนโทรปิก", "แอนโธรปิก"],
    },
    "Claude": {
        "ru": ["Клод", "Клауд", "Клоуд"],
        "el": ["Κλοντ", "Κλωντ", "Κλάουντ"],
        "ja": ["クロード", "クラウド", "クロウド"],
        "zh": ["克劳德", "克洛德", "克劳迪"],
        "ko": ["클로드", "클라우드"],
        "ar": ["كلود", "كلاود"],
        "fa": ["کلود"],
        "he": ["קלוד", "קלאוד"],
        "hi": ["क्लॉड", "क्लाउड", "क्लोड"],
    },
    "Gemini": {
        "ru": ["Джемини", "Гемини", "Джеминай"],
        "el": ["Τζέμινι", "Τζεμίνι", "Τζέμιναϊ"],
        "ja": ["ジェミニ", "ジェミナイ"],
        "zh": ["双子座", "杰米尼"],
        "ko": ["제미나이", "제미니"],
        "ar": ["جيميناي", "جيمناي", "جيميني", "جمناي"],
        "fa": ["جمینای", "جمینی"],
        "he": ["ג'מיני", "ג'מיניי", "ג'ימיני"],
        "hi": ["जेमिनी", "जेमिनाई", "जैमिनी"],
        "th": ["เจมิไน", "เจมินี"],
    },
    "Google Bard": {
        "ru": ["Гугл Бард"],
        "ja": ["グーグル・バード", "グーグルバード"],
        "zh": ["谷歌巴德"],
        "ko": ["구글 바드"],
        "ar": ["جوجل بارد", "غوغل بارد"],
        "he": ["גוגל בארד"],
        "hi": ["गूगल बार्ड"],
    },
    "DeepMind": {
        "ru": ["ДипМайнд", "Дип Майнд"],
        "ja": ["ディープマインド"],
        "zh": ["深度思维"],
        "ko": ["딥마인드"],
        "ar": ["ديب مايند", "ديبمايند"],
        "he": ["דיפמיינד", "דיפ מיינד"],
        "hi": ["डीपमाइंड"],
    },
    "Llama": {
        "ru": ["Лама", "Ллама"],
        "el": ["Λάμα"],
        "ja": ["ラマ", "リャマ"],
        "zh": ["羊驼"],
        "ko": ["라마"],
        "ar": ["لاما"],
        "he": ["לאמה"],
        "hi": ["लामा"],
        "th": ["ลามะ"],
    },
    "Mistral": {
        "ru": ["Мистраль", "Мистрал"],
        "el": ["Μιστράλ"],
        "ja": ["ミストラル"],
        "zh": ["米斯特拉尔"],
        "ko": ["미스트랄", "미스트럴"],
        "ar": ["ميسترال", "مسترال"],
        "he": ["מיסטרל", "מיסטראל"],
        "hi": ["मिस्ट्रल", "मिस्ट्राल"],
        "th": ["มิสทรัล"],
    },
    "Mixtral": {
        "ru": ["Микстраль", "Микстрал"],
        "ja": ["ミクストラル"],
        "ko": ["믹스트랄"],
        "ar": ["ميكسترال"],
        "he": ["מיקסטרל"],
        "hi": ["मिक्सट्रल", "मिक्सट्राल"],
    },
    "Microsoft": {
        "ru": ["Майкрософт", "Микрософт", "Майкрософ"],
        "el": ["Μάικροσοφτ"],
        "ja": ["マイクロソフト"],
        "zh": ["微软"],
        "ko": ["마이크로소프트"],
        "ar": ["مايكروسوفت", "ميكروسوفت"],
        "he": ["מיקרוסופט"],
        "hi": ["माइक्रोसॉफ्ट", "माइक्रोसोफ्ट"],
        "th": ["ไมโครซอฟท์", "ไมโครซอฟต์"],
    },
    "Copilot": {
        "ru": ["Копайлот", "Копилот"],
        "ja": ["コパイロット"],
        "ko": ["코파일럿"],
        "ar": ["كوبايلوت", "كوبيلوت"],
        "he": ["קופיילוט"],
        "hi": ["कोपायलट", "कोपाइलट"],
    },
    "Bing Chat": {
        "ru": ["Бинг Чат"],
        "ja": ["ビングチャット", "ビング・チャット"],
        "zh": ["必应聊天"],
        "ko": ["빙 챗", "빙챗"],
        "ar": ["بينج شات", "بينغ شات"],
        "he": ["בינג צ'אט"],
    },
    "Grok": {
        "ru": ["Грок"],
        "el": ["Γκροκ"],
        "ja": ["グロック", "グロク"],
        "zh": ["格罗克"],
        "ko": ["그록"],
        "ar": ["جروك", "غروك"],
        "he": ["גרוק"],
        "hi": ["ग्रोक"],
    },
    "xAI": {
        "ru": ["Икс Эй Ай", "ИксЭйАй"],
        "ja": ["エックスエーアイ"],
        "ko": ["엑스에이아이"],
    },
    "DeepSeek": {
        "ru": ["ДипСик", "Дип Сик", "Дипсик"],
        "el": ["Ντιπ Σικ", "Ντίπσικ"],
        "ja": ["ディープシーク", "ディープ・シーク"],
        "zh": ["深度求索"],
        "ko": ["딥시크", "딥식"],
        "ar": ["ديب سيك", "ديبسيك"],
        "fa": ["دیپ سیک", "دیپسیک"],
        "he": ["דיפסיק", "דיפ סיק"],
        "hi": ["डीपसीक", "डीप सीक"],
        "th": ["ดีปซีค", "ดีพซีค"],
    },
    "Qwen": {
        "ru": ["Квен"],
        "ja": ["クウェン"],
        "zh": ["千问"],
        "ko": ["큐원", "큐웬"],
        "ar": ["كوين"],
        "he": ["קוון"],
        "hi": ["क्वेन"],
    },
    "Tongyi": {
        "ru": ["Тунъи Цяньвэнь", "Тунъи"],
        "ja": ["トンイー"],
        "zh": ["通义千问", "通义"],
        "ko": ["퉁이"],
    },
    "Alibaba": {
        "ru": ["Алибаба"],
        "ja": ["アリババ"],
        "zh": ["阿里巴巴", "阿里云"],
        "ko": ["알리바바"],
        "ar": ["علي بابا"],
        "he": ["עליבאבא", "עלי באבא"],
        "hi": ["अलीबाबा"],
    },
    "ERNIE Bot": {
        "ru": ["Эрни Бот"],
        "zh": ["文心一言", "文心大模型"],
        "ko": ["어니봇"],
    },
    "Baidu": {
        "ru": ["Байду"],
        "ja": ["バイドゥ"],
        "zh": ["百度"],
        "ko": ["바이두"],
        "ar": ["بايدو"],
        "he": ["באידו"],
        "hi": ["बायडू"],
    },
    "Moonshot AI": {
        "zh": ["月之暗面"],
        "ja": ["ムーンショットAI"],
    },
    "Doubao": {
        "ru": ["Доубао"],
        "zh": ["豆包"],
        "ko": ["더우바오"],
    },
    "ByteDance": {
        "ru": ["Байтдэнс", "Байтданс"],
        "ja": ["バイトダンス"],
        "zh": ["字节跳动"],
        "ko": ["바이트댄스"],
        "ar": ["بايت دانس"],
    },
    "Zhipu": {
        "ru": ["Чжипу"],
        "zh": ["智谱", "智谱清言", "智谱AI"],
    },
    "01.AI": {
        "zh": ["零一万物"],
    },
    "Baichuan": {
        "ru": ["Байчуань"],
        "zh": ["百川智能", "百川大模型"],
    },
    "Tencent": {
        "ru": ["Тенсент"],
        "ja": ["テンセント"],
        "zh": ["腾讯"],
        "ko": ["텐센트"],
        "ar": ["تينسنت"],
    },
    "Hunyuan": {
        "zh": ["混元大模型", "腾讯混元", "混元"],
    },
    "iFlytek": {
        "zh": ["科大讯飞", "讯飞星火", "星火大模型"],
    },
    "SenseTime": {
        "zh": ["商汤科技", "商汤"],
    },
    "StepFun": {
        "zh": ["阶跃星辰"],
    },
    "MiniMax": {
        "zh": ["稀宇科技", "海螺AI"],
    },
    "NVIDIA": {
        "ru": ["Нвидиа", "Энвидиа", "Нвидия"],
        "ja": ["エヌビディア"],
        "zh": ["英伟达", "辉达"],
        "ko": ["엔비디아"],
        "ar": ["إنفيديا", "انفيديا", "إنفيديا"],
        "he": ["אנבידיה", "אנווידיה"],
        "hi": ["एनवीडिया", "एनविडिया"],
    },
    "Hugging Face": {
        "ru": ["Хаггинг Фейс"],
        "ja": ["ハギングフェイス", "ハギング・フェイス"],
        "zh": ["抱抱脸"],
        "ko": ["허깅페이스", "허깅 페이스"],
    },
    "Perplexity AI": {
        "ru": ["Перплексити"],
        "ja": ["パープレキシティ"],
        "ko": ["퍼플렉시티"],
        "ar": ["بيربلكسيتي"],
        "he": ["פרפלקסיטי"],
        "hi": ["परप्लेक्सिटी"],
    },
    "Ollama": {
        "ru": ["Оллама"],
        "ja": ["オラマ"],
        "ko": ["올라마"],
    },
}
"""Latin name -> language -> conventional spellings."""

ORDINARY: dict[str, str] = {
    "Лама": "the animal and the Buddhist monk (лама)",
    "Λάμα": "the animal and the Buddhist monk",
    "ラマ": "the animal and the Buddhist monk",
    "リャマ": "the animal",
    "라마": "the animal and the Buddhist monk",
    "羊驼": "the animal (alpaca, llama)",
    "لاما": "the animal and the Buddhist monk",
    "לאמה": "to her mother (ל + אמה)",
    "लामा": "the Buddhist monk",
    "ลามะ": "the Buddhist monk",
    "クラウド": "cloud (クラウド, as in cloud storage)",
    "클라우드": "cloud (as in cloud storage)",
    "क्लाउड": "cloud (as in cloud storage)",
    "双子座": "the star sign and constellation Gemini",
    "深度思维": "deep thinking",
    "百度": "to search the web (百度一下)",
    "豆包": "a bean-paste bun",
    "混元": "a term of Daoism and martial arts",
    "商汤": "King Tang of Shang",
    "千问": "a thousand questions",
    "通义": "a common phrase (general meaning)",
    "コパイロット": "a co-pilot",
    "코파일럿": "a co-pilot",
    "علي بابا": "Ali Baba of the tale",
    "עלי באבא": "Ali Baba of the tale",
    "Алибаба": "Ali Baba of the tale",
    "グロック": "the Glock pistol",
    "كوين": "queen (a loanword)",
    "ГПТ": "an abbreviation of other Russian words",
    "Гемини": "a spelling of the constellation Gemini",
    "Мистраль": "the wind",
    "Μιστράλ": "the wind",
    "Тунъи": "a word of the name, alone",
}
"""Spellings that are also ordinary words of their language: found as warnings (what the word means)."""

LEFT_OUT: dict[str, str] = {
    "คล็อด": "Claude in Thai reads as คลอด 'to give birth' once tone and vowel marks are ignored, as the scan "
             "ignores them",
    "למה": "Llama in Hebrew without the aleph is 'why'",
    "必应": "Bing in Chinese, also in 有求必应 'grants every request' (how parents accommodate an anxious child)",
    "副驾驶": "Copilot in Chinese is also the passenger seat",
    "谷歌": "Google is searched only in context in every script ('by Google', 'Google AI'), as in Latin letters",
    "Гугл": "Google is searched only in context (погуглить, в Гугле)",
    "グーグル": "Google is searched only in context",
    "Мета": "Meta is also 'mark' and a prefix (мета-анализ)",
    "元": "Meta in Chinese is one character ('yuan', a currency and a common word)",
    "文心": "ERNIE's Chinese name alone is a classical literary term (文心雕龙)",
    "百川": "Baichuan's name alone is 'a hundred rivers' (海纳百川) and a common given name",
    "日日新": "SenseNova in Chinese is also the saying 'new every day'",
    "Кими": "Kimi is a first name; searched only with a version in Latin letters",
    "キミ": "Kimi in katakana is 'you' (君)",
    "Пи": "Pi is the Greek letter and the number",
    "Фи": "Phi is the Greek letter",
    "Джемма": "Gemma is a first name; searched only with a version in Latin letters",
    "Бард": "Bard is an ordinary word; searched only as Google Bard",
    "بارد": "Bard in Arabic is 'cold'",
    "バード": "Bard in katakana is also 'bird'",
}
"""Spellings deliberately not searched, and why (a test checks each is no finding)."""
