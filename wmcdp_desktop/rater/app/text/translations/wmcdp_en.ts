<?xml version='1.0' encoding='utf-8'?>
<TS version="2.1" language="en_US">
<context>
    <name>Plurals</name>
    <message numerus="yes">
        <source>… and %Ln more problem(s).</source>
        <translation>
            <numerusform>… and %Ln more problem.</numerusform>
            <numerusform>… and %Ln more problems.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RatingController</name>
    <message numerus="yes">
        <source>Not submitted: %Ln thing(s) to fix, shown next to each control.</source>
        <translation>
            <numerusform>Not submitted: %Ln thing to fix, shown next to each control.</numerusform>
            <numerusform>Not submitted: %Ln things to fix, shown next to each control.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RatingForm</name>
    <message numerus="yes">
        <source>Failure modes (%Ln ticked)</source>
        <translation>
            <numerusform>Failure modes (%Ln ticked)</numerusform>
            <numerusform>Failure modes (%Ln ticked)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not submitted yet: %Ln thing(s) left to fix, shown next to each control.</source>
        <translation>
            <numerusform>Not submitted yet: %Ln thing left to fix, shown next to each control.</numerusform>
            <numerusform>Not submitted yet: %Ln things left to fix, shown next to each control.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%Ln to fix</source>
        <translation>
            <numerusform>%Ln to fix</numerusform>
            <numerusform>%Ln to fix</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not submitted: %Ln thing(s) to fix, shown next to each control.</source>
        <translation>
            <numerusform>Not submitted: %Ln thing to fix, shown next to each control.</numerusform>
            <numerusform>Not submitted: %Ln things to fix, shown next to each control.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>_Summary</name>
    <message numerus="yes">
        <source>Not included: %Ln task(s) started but not submitted yet.</source>
        <translation>
            <numerusform>Not included: %Ln task started but not submitted yet.</numerusform>
            <numerusform>Not included: %Ln tasks started but not submitted yet.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not included: %Ln revision(s) you have not submitted yet (the earlier submitted rating is included).</source>
        <translation>
            <numerusform>Not included: %Ln revision you have not submitted yet (the earlier submitted rating is included).</numerusform>
            <numerusform>Not included: %Ln revisions you have not submitted yet (the earlier submitted rating is included).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not included: %Ln flag(s) for your coordinator on tasks not submitted yet. Submit a task to send its flag.</source>
        <translation>
            <numerusform>Not included: %Ln flag for your coordinator on tasks not submitted yet. Submit a task to send its flag.</numerusform>
            <numerusform>Not included: %Ln flags for your coordinator on tasks not submitted yet. Submit a task to send its flag.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %Ln submitted rating(s) of {total} tasks (with every earlier revision) to:</source>
        <translation>
            <numerusform>Exported %Ln submitted rating of {total} tasks (with every earlier revision) to:</numerusform>
            <numerusform>Exported %Ln submitted ratings of {total} tasks (with every earlier revision) to:</numerusform>
        </translation>
    </message>
</context>
</TS>