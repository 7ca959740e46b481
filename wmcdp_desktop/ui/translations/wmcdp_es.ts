<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es_ES">
<context>
    <name></name>
    <message numerus="yes">
        <source>BundleChecker</source>
        <comment>A task whose file is damaged or changed is refused when you open it; the other tasks can be rated as usual. Ask your study coordinator for a fresh copy of the bundle.</comment>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>AboutDialog</name>
    <message>
        <source>About WM-CDP Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WM-CDP Desktop {version}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The offline rating tool of the WholeMind Clinical Decision Benchmark.
Licensed under the Apache License, Version 2.0 ({licence}). It ships Qt and PySide6 under the GNU LGPL version 3: you may replace those libraries with your own build (see below).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Full licence texts: {folder}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Licence and third-party notices</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The licence and notices could not be read: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Licence and third-party notices</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BlindingQuestion</name>
    <message>
        <source>One more question</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Blinding question</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Do you think you know which system wrote this response?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your rating passed its checks. Answer with your first impression before it is saved: the answer is saved with this rating, changes nothing in it, and helps the study check that the systems stayed hidden. “I can’t tell” is a good answer; so is skipping.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>I can’t tell</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save my answer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skip the question</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BundleChecker</name>
    <message>
        <source>changed on disk since it was opened: close it and open it again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking the bundle&apos;s files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Stop checking</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Bundle checked: every file is intact.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The bundle could not be checked again:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Checking the bundle was stopped; each task is still checked when it is shown.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>BundleOpener</name>
    <message>
        <source>This bundle cannot be opened:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Opening {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel opening</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>CalibrationView</name>
    <message>
        <source>✓ agrees</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>✗ differs</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>see explanation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Calibration feedback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This was a calibration task: here is the adjudicated answer beside your rating. Your submitted rating is kept as it is.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Calibration feedback details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>yours: {yours}   ·   adjudicated: {expected}   ·   {agrees}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>DimensionRow</name>
    <message>
        <source>Not set</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>N/A: {guidance}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>N/A</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{dimension}: not applicable (N/A)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not applicable to this response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>N/A – not applicable</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(submitted: read-only)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{digit} is not on this scale: type {low} to {high}.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FailureModeRow</name>
    <message>
        <source>Use selected text as evidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear evidence quotes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>minor</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>moderate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>major</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>critical</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Severity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Severity: {failure_mode}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose severity…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Evidence note</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Evidence note: {failure_mode}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use selected text as evidence: {failure_mode}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Select words in the response you are rating, then press this (Ctrl+Shift+E).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clear evidence quotes: {failure_mode}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>“{quote}” (characters {start}–{end})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No evidence quotes yet.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FailureModesPanel</name>
    <message>
        <source>Failure modes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tick each failure you see in the response; leave the others unticked (absent).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <source>Find in scenario and response</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Find &amp;next</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;lose find</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not found</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About WM-CDP Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WM-CDP Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WM-CDP bundle (*.wmcdp *.zip);;Bundle folder: choose its bundle.json (bundle.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open bundle…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the &amp;demo bundle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Export results…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Close bundle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Submit rating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save &amp;draft now</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Next task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Previous task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Next &amp;unfinished task</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use selected text as &amp;evidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Pause or resume the timer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Revise this rating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Larger text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Smaller text</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rubric &amp;help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Rater id…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Idle timeout…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The computer&apos;s language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WM-CDP Desktop will use {language} the next time it starts.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the computer&apos;s language</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Only a submitted rating can be revised.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close the bundle first (File &gt; Close bundle), then change the rater id.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open bundle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The demo bundle is missing from this installation ({path}).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Close anyway? Your last changes would be lost.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>NotesPanel</name>
    <message>
        <source>Brief rationale (required)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Best aspect</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Main concern</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Suggested better clinical move</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Confidence in this rating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Notes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not set</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>PlainText</name>
    <message>
        <source>[Not shown: the last {omitted} characters of this text. The app shows the first {shown} characters of any one text; ask your study coordinator about the rest.]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>… ({count} more characters not shown)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>Plurals</name>
    <message numerus="yes">
        <source>… and %n more problem(s).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Preferences</name>
    <message>
        <source>Settings not saved:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings could not be saved: {error}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Seconds without any input after which the task timer pauses:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The task timer now pauses after {seconds} s without input.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Text size {size} pt</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>QCoreApplication</name>
    <message>
        <source>BundleChecker</source>
        <comment>Checking every file of this bundle found problems:</comment>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RaterDialog</name>
    <message>
        <source>Rater &amp;id</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Role or background (optional)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Who is rating?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter the rater id your study coordinator gave you (letters, digits and . _ : -). It goes into every rating you submit and is remembered on this computer.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>e.g. child psychologist</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>A rater id cannot contain spaces: use for example {suggestion}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Enter a rater id of 1-128 letters, digits and . _ : - (starting with a letter or digit).</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RatingController</name>
    <message>
        <source>Task {id} cannot be shown:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Some saved drafts could not be read and were moved aside (nothing was deleted):</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every task is submitted. Use File &gt; Export results… to send them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Unsaved changes…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Draft saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not saved — see the message above</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Submitted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All changes saved ({time})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>All changes saved</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing entered yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Not saved: the data folder is gone</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Session: {time}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This task is already submitted. Choose “Revise this rating” to change it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Your rating passed its checks: one question before it is saved.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Not submitted: %n thing(s) to fix, shown next to each control.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Submitted {task} (revision {revision}). {done} of {total} submitted.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Calibration feedback is shown beside your rating; Ctrl+PgDown for the next task.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every task is submitted: use File &gt; Export results… to send them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Every task is submitted. Use File &gt; Export results… to save the file for your coordinator.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RatingForm</name>
    <message>
        <source>S&amp;ubmit rating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Revise this rating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Discard revision</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Change this submitted rating: a new revision is written (Ctrl+Shift+R)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Check and submit this rating (Ctrl+Enter)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rating form</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Submitted (revision {revision}) on {when}; active time {time}. The rating below is read-only. To change it, choose “{revise}”: a new revision is written and this one is kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Revising your submitted rating (revision {base}). Submitting writes revision {next}; revision {base} is kept.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WM-CDP Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Not submitted yet: %n thing(s) left to fix, shown next to each control.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Select some words in the response you are rating first.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>This rating is submitted: choose “Revise this rating” to change it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Tick a failure mode first (or move to the one the quote is for), then press Ctrl+Shift+E.</source>
        <translation type="unfinished"></translation>
    </message>
    <message numerus="yes">
        <source>Not submitted: %n thing(s) to fix, shown next to each control.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RatingPage</name>
    <message>
        <source>Retr&amp;y saving</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rubric help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Dismiss this message</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{title} (version {version})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Dimensions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>when the dimension does not apply</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>N/A allowed: {guidance}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Failure modes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rating or rubric help</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>ResultsExporter</name>
    <message>
        <source>Export results</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Results (*.zip)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>An export is already being written; wait for it to finish.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exporting results to {name}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cancel export</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The results could not be exported:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Nothing was written under that name.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export cancelled: nothing was written.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>RubricPanel</name>
    <message>
        <source>Scores</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>Session: {time}</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TaskList</name>
    <message>
        <source>&amp;Tasks</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Progress</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{done} of {total} submitted</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TaskListModel</name>
    <message>
        <source>Not started</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>In progress</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Submitted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task {id}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>{state} (revising)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TaskView</name>
    <message>
        <source>Scenario and conversation so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The response you are rating</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Parent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Caregiver</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Child</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Adolescent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clinician</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>AI assistant</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Teacher</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Other</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rate this response as the next move in the conversation above. Select words here and use “Use selected text as evidence” on a failure mode (Ctrl+Shift+E) to quote them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Task {position} of {total}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Clinical domain: {domain}    Scenario types: {types}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Context</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Age band: {age}
Setting: {setting}
Speakers: {speakers}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Conversation so far</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>(no earlier turns)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Turn {number} — {who}:</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>TimerWidget</name>
    <message>
        <source>&amp;Pause timer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Resume timer</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>counting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused: no activity</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused: window in background</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>not counting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time on this task: {time}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause or resume the task timer (Ctrl+Shift+P)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time on this task: {time} ({status})</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>WelcomeScreen</name>
    <message>
        <source>&amp;Open bundle…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Try the d&amp;emo bundle</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Recent bundles</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Change rater id…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>WM-CDP Desktop</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rate blinded AI responses for the WholeMind Clinical Decision Benchmark.
Open the bundle your study coordinator sent you. Everything stays on this computer: your work is saved as you go, and you send the results back with File &gt; Export results…</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No bundles opened yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Double-click (or press Enter on) a bundle to open it again</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rating as: {rater} ({role})</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rating as: {rater}</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rater id not set yet: you will be asked for it when you open a bundle.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>_Summary</name>
    <message numerus="yes">
        <source>Not included: %n task(s) started but not submitted yet.</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not included: %n revision(s) you have not submitted yet (the earlier submitted rating is included).</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %n submitted rating(s) of {total} tasks (with every earlier revision) to:</source>
        <translation type="unfinished">
            <numerusform></numerusform>
            <numerusform></numerusform>
        </translation>
    </message>
    <message>
        <source>Send this file to your study coordinator.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>app</name>
    <message>
        <source>Details were written to {path}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details could not be written to a log file in {folder}.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Something unexpected went wrong. Your saved drafts and ratings are safe on disk.
{where} Please send that file to your study coordinator.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>system_check</name>
    <message>
        <source>WM-CDP Desktop cannot open its window: this computer lacks system libraries that Qt needs to show windows on X11.
On Debian or Ubuntu, install them with:
  sudo apt install {packages}
(Other Linux systems: install the xcb-util libraries of the same names.)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
