"""Real-looking chatbot answers for the window tests: long markdown with headings, emphasis, lists, a table,
links, an image, raw HTML and emojis (what 169 of 244 answers of one model looked like), and one answer of
the other kind (plain paragraphs)."""

from __future__ import annotations

MARKDOWN_ANSWER = """### 🌱 Supporting Sam with night-time worries

It sounds exhausting — for **both** of you. What you are describing is *very common* in anxious
children, and there is a lot you can do. Here is a plan you can start **tonight**:

---

#### 1. Keep the routine *predictable*
- **Same steps every night**: bath, two books, lights out.
- *How it helps*: the brain learns that bedtime is safe 😊.
- Avoid long reassurance loops — answer a worry **once**, then move on.

#### 2. Ladder of small steps 🪜

| Step | What you do | How long |
|------|-------------|:--------:|
| 1 | Sit by the bed | 1 week |
| 2 | Sit by the **door** | 1 week |
| 3 | Check in every 5 min | 2 weeks |

> Progress is rarely a straight line. A bad night is *not* a failure.

#### 3. When to get more help ⚠️
If the worries stop Sam from going to school, or you notice checking rituals, talk to your GP or see
[the NHS page on anxiety](https://www.nhs.uk/mental-health/children-and-young-adults/) and
<https://www.anxietycanada.com>.

![A calm bedroom](file:///etc/hosts "bedroom")

<script>alert('hi')</script> <b>Not bold</b> <a href="https://evil.invalid">click</a>

```
Bedtime checklist:  bath -> books -> lights
```

1. Praise brave behaviour 👏
2. Keep a simple sticker chart
   - one sticker per brave night
3. Look after yourself too ❤️ &amp; rest

Take care — you are doing a great job. 👩‍⚕️
"""

PLAIN_ANSWER = (
    "It sounds exhausting for both of you. Night-time worries are common in anxious children.\n\n"
    "Keep the routine the same every night and answer a worry once, then move on. If the worries stop Sam "
    "from going to school, talk to your GP."
)
