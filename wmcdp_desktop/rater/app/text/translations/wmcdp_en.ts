<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="en_US">
<context>
    <name>Plurals</name>
    <message numerus="yes">
        <source>… and %n more problem(s).</source>
        <translation>
            <numerusform>… and %n more problem.</numerusform>
            <numerusform>… and %n more problems.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RatingController</name>
    <message numerus="yes">
        <source>Not submitted: %n thing(s) to fix, shown next to each control.</source>
        <translation>
            <numerusform>Not submitted: %n thing to fix, shown next to each control.</numerusform>
            <numerusform>Not submitted: %n things to fix, shown next to each control.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RatingForm</name>
    <message numerus="yes">
        <source>Failure modes (%n ticked)</source>
        <translation>
            <numerusform>Failure modes (%n ticked)</numerusform>
            <numerusform>Failure modes (%n ticked)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not submitted yet: %n thing(s) left to fix, shown next to each control.</source>
        <translation>
            <numerusform>Not submitted yet: %n thing left to fix, shown next to each control.</numerusform>
            <numerusform>Not submitted yet: %n things left to fix, shown next to each control.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n to fix</source>
        <translation>
            <numerusform>%n to fix</numerusform>
            <numerusform>%n to fix</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not submitted: %n thing(s) to fix, shown next to each control.</source>
        <translation>
            <numerusform>Not submitted: %n thing to fix, shown next to each control.</numerusform>
            <numerusform>Not submitted: %n things to fix, shown next to each control.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>_Summary</name>
    <message numerus="yes">
        <source>Not included: %n task(s) started but not submitted yet.</source>
        <translation>
            <numerusform>Not included: %n task started but not submitted yet.</numerusform>
            <numerusform>Not included: %n tasks started but not submitted yet.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not included: %n revision(s) you have not submitted yet (the earlier submitted rating is included).</source>
        <translation>
            <numerusform>Not included: %n revision you have not submitted yet (the earlier submitted rating is included).</numerusform>
            <numerusform>Not included: %n revisions you have not submitted yet (the earlier submitted rating is included).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n submitted rating(s) of {total} tasks (with every earlier revision) to:</source>
        <translation>
            <numerusform>Exported %n submitted rating of {total} tasks (with every earlier revision) to:</numerusform>
            <numerusform>Exported %n submitted ratings of {total} tasks (with every earlier revision) to:</numerusform>
        </translation>
    </message>
</context>
</TS>