<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="es_ES">
<context>
    <name>AboutDialog</name>
    <message>
        <source>About WM-CDP Desktop</source>
        <translation>Acerca de WM-CDP Desktop</translation>
    </message>
    <message>
        <source>WM-CDP Desktop {version}</source>
        <translation>WM-CDP Desktop {version}</translation>
    </message>
    <message>
        <source>The offline rating tool of the WholeMind Clinical Decision Benchmark.
Licensed under the Apache License, Version 2.0 ({licence}). It ships Qt and PySide6 under the GNU LGPL version 3: you may replace those libraries with your own build (see below).</source>
        <translation>La herramienta de evaluación sin conexión del WholeMind Clinical Decision Benchmark.
Distribuida bajo la Apache License, versión 2.0 ({licence}). Incluye Qt y PySide6 bajo la GNU LGPL versión 3: puede sustituir esas bibliotecas por una compilación propia (véase más abajo).</translation>
    </message>
    <message>
        <source>Full licence texts: {folder}</source>
        <translation>Textos completos de las licencias: {folder}</translation>
    </message>
    <message>
        <source>Licence and third-party notices</source>
        <translation>Licencia y avisos de terceros</translation>
    </message>
    <message>
        <source>The licence and notices could not be read: {error}</source>
        <translation>No se pudieron leer la licencia ni los avisos: {error}</translation>
    </message>
    <message>
        <source>&amp;Licence and third-party notices</source>
        <translation>&amp;Licencia y avisos de terceros</translation>
    </message>
</context>
<context>
    <name>Accessible</name>
    <message>
        <source>{name}: vertical scroll bar</source>
        <translation>{name}: barra de desplazamiento vertical</translation>
    </message>
    <message>
        <source>{name}: horizontal scroll bar</source>
        <translation>{name}: barra de desplazamiento horizontal</translation>
    </message>
</context>
<context>
    <name>BlindingQuestion</name>
    <message>
        <source>One more question</source>
        <translation>Una pregunta más</translation>
    </message>
    <message>
        <source>Blinding question</source>
        <translation>Pregunta sobre el enmascaramiento</translation>
    </message>
    <message>
        <source>Do you think you know which system wrote this response?</source>
        <translation>¿Cree que sabe qué sistema escribió esta respuesta?</translation>
    </message>
    <message>
        <source>Your rating passed its checks. Answer with your first impression before it is saved: the answer is saved with this rating, changes nothing in it, and helps the study check that the systems stayed hidden. “I can’t tell” is a good answer; so is skipping.</source>
        <translation>Su valoración ha superado las comprobaciones. Responda con su primera impresión antes de que se guarde: la respuesta se guarda con esta valoración, no cambia nada de ella y ayuda al estudio a comprobar que los sistemas permanecieron ocultos. «No lo sé» es una buena respuesta; omitir la pregunta también.</translation>
    </message>
    <message>
        <source>I can’t tell</source>
        <translation>No lo sé</translation>
    </message>
    <message>
        <source>Save my answer</source>
        <translation>Guardar mi respuesta</translation>
    </message>
    <message>
        <source>Skip the question</source>
        <translation>Omitir la pregunta</translation>
    </message>
</context>
<context>
    <name>BundleChecker</name>
    <message>
        <source>changed on disk since it was opened: close it and open it again</source>
        <translation>ha cambiado en el disco desde que se abrió: ciérrelo y vuelva a abrirlo</translation>
    </message>
    <message>
        <source>Checking every file of this bundle found problems:</source>
        <translation>Al comprobar todos los archivos de este paquete se encontraron problemas:</translation>
    </message>
    <message>
        <source>A task whose file is damaged or changed is refused when you open it; the other tasks can be rated as usual. Ask your study coordinator for a fresh copy of the bundle.</source>
        <translation>Una tarea cuyo archivo esté dañado o modificado se rechaza al abrirla; las demás tareas se pueden valorar con normalidad. Pida a la coordinación del estudio una copia nueva del paquete.</translation>
    </message>
    <message>
        <source>Checking the bundle&apos;s files</source>
        <translation>Comprobando los archivos del paquete</translation>
    </message>
    <message>
        <source>Stop checking</source>
        <translation>Detener la comprobación</translation>
    </message>
    <message>
        <source>Bundle checked: every file is intact.</source>
        <translation>Paquete comprobado: todos los archivos están intactos.</translation>
    </message>
    <message>
        <source>The bundle could not be checked again:</source>
        <translation>No se pudo volver a comprobar el paquete:</translation>
    </message>
    <message>
        <source>Checking the bundle was stopped; each task is still checked when it is shown.</source>
        <translation>Se detuvo la comprobación del paquete; cada tarea se sigue comprobando al mostrarla.</translation>
    </message>
</context>
<context>
    <name>BundleOpener</name>
    <message>
        <source>This bundle cannot be opened:</source>
        <translation>No se puede abrir este paquete:</translation>
    </message>
    <message>
        <source>Opening {name}</source>
        <translation>Abriendo {name}</translation>
    </message>
    <message>
        <source>Cancel opening</source>
        <translation>Cancelar la apertura</translation>
    </message>
</context>
<context>
    <name>BundleText</name>
    <message>
        <source>[link: {address}]</source>
        <translation>[enlace: {address}]</translation>
    </message>
    <message>
        <source>[image not shown: {description} ({address})]</source>
        <translation>[imagen no mostrada: {description} ({address})]</translation>
    </message>
    <message>
        <source>no description</source>
        <translation>sin descripción</translation>
    </message>
</context>
<context>
    <name>CalibrationView</name>
    <message>
        <source>✓ agrees</source>
        <translation>✓ coincide</translation>
    </message>
    <message>
        <source>✗ differs</source>
        <translation>✗ difiere</translation>
    </message>
    <message>
        <source>see explanation</source>
        <translation>véase la explicación</translation>
    </message>
    <message>
        <source>Calibration feedback</source>
        <translation>Retroalimentación de calibración</translation>
    </message>
    <message>
        <source>This was a calibration task: here is the adjudicated answer beside your rating. Your submitted rating is kept as it is.</source>
        <translation>Esta era una tarea de calibración: aquí tiene la respuesta de referencia junto a su valoración. Su valoración enviada se conserva tal como está.</translation>
    </message>
    <message>
        <source>Calibration feedback details</source>
        <translation>Detalles de la retroalimentación de calibración</translation>
    </message>
    <message>
        <source>yours: {yours}   ·   adjudicated: {expected}   ·   {agrees}</source>
        <translation>la suya: {yours}   ·   de referencia: {expected}   ·   {agrees}</translation>
    </message>
</context>
<context>
    <name>CannotRatePanel</name>
    <message>
        <source>Cannot rate: your reason</source>
        <translation>No se puede valorar: su motivo</translation>
    </message>
    <message>
        <source>This task will be sent to your coordinator as “cannot rate”, with your reason, instead of a rating. What you entered in the rating is kept here, not sent: choose “Rate it after all” to go back to it.</source>
        <translation>Esta tarea se enviará a la coordinación del estudio como «no se puede valorar», con su motivo, en lugar de una valoración. Lo que haya introducido en la valoración se conserva aquí, sin enviarse: elija «Valorarla después de todo» para volver a ello.</translation>
    </message>
    <message>
        <source>The content is broken or cut off</source>
        <translation>El contenido está dañado o cortado</translation>
    </message>
    <message>
        <source>It is outside my expertise</source>
        <translation>Queda fuera de mi especialidad</translation>
    </message>
    <message>
        <source>I have a conflict of interest</source>
        <translation>Tengo un conflicto de intereses</translation>
    </message>
    <message>
        <source>Other (say why below)</source>
        <translation>Otro (indique el motivo abajo)</translation>
    </message>
    <message>
        <source>Why can you not rate it?</source>
        <translation>¿Por qué no puede valorarla?</translation>
    </message>
    <message>
        <source>In a few words (required for Other)</source>
        <translation>En pocas palabras (obligatorio para «Otro»)</translation>
    </message>
    <message>
        <source>Why you cannot rate it, in a few words</source>
        <translation>Por qué no puede valorarla, en pocas palabras</translation>
    </message>
    <message>
        <source>Rate it &amp;after all</source>
        <translation>&amp;Valorarla después de todo</translation>
    </message>
    <message>
        <source>(submitted: read-only)</source>
        <translation>(enviada: solo lectura)</translation>
    </message>
</context>
<context>
    <name>DimensionRow</name>
    <message>
        <source>Not set</source>
        <translation>Sin asignar</translation>
    </message>
    <message>
        <source>N/A: {guidance}</source>
        <translation>N/A: {guidance}</translation>
    </message>
    <message>
        <source>{dimension}: levels</source>
        <translation>{dimension}: niveles</translation>
    </message>
    <message>
        <source>N/A</source>
        <translation>N/A</translation>
    </message>
    <message>
        <source>{dimension}: not applicable (N/A)</source>
        <translation>{dimension}: no aplicable (N/A)</translation>
    </message>
    <message>
        <source>Not applicable to this response</source>
        <translation>No aplicable a esta respuesta</translation>
    </message>
    <message>
        <source>Not applicable to this response.</source>
        <translation>No aplicable a esta respuesta.</translation>
    </message>
    <message>
        <source>Choose {low}–{high}: click a level, or type its number.</source>
        <translation>Elija {low}–{high}: haga clic en un nivel o escriba su número.</translation>
    </message>
    <message>
        <source>(submitted: read-only)</source>
        <translation>(enviada: solo lectura)</translation>
    </message>
    <message>
        <source>{digit} is not on this scale: type {low} to {high}.</source>
        <translation>{digit} no está en esta escala: escriba de {low} a {high}.</translation>
    </message>
</context>
<context>
    <name>DropTarget</name>
    <message>
        <source>several files</source>
        <translation>varios archivos</translation>
    </message>
    <message>
        <source>something that is not a file on this computer</source>
        <translation>algo que no es un archivo de este equipo</translation>
    </message>
    <message>
        <source>a folder</source>
        <translation>una carpeta</translation>
    </message>
    <message>
        <source>a file that is not a bundle ({name})</source>
        <translation>un archivo que no es un paquete ({name})</translation>
    </message>
    <message>
        <source>Nothing was opened: the window takes one bundle file ending in .wmcdp, and this was {what}. To open a bundle folder, use File &gt; Open and choose its bundle.json.</source>
        <translation>No se abrió nada: la ventana acepta un único archivo de paquete terminado en .wmcdp, y esto era {what}. Para abrir una carpeta de paquete, use Archivo &gt; Abrir y elija su bundle.json.</translation>
    </message>
</context>
<context>
    <name>FailureModeRow</name>
    <message>
        <source>Use selected text as evidence</source>
        <translation>Usar el texto seleccionado como evidencia</translation>
    </message>
    <message>
        <source>Clear evidence quotes</source>
        <translation>Borrar las citas de evidencia</translation>
    </message>
    <message>
        <source>minor</source>
        <translation>leve</translation>
    </message>
    <message>
        <source>moderate</source>
        <translation>moderada</translation>
    </message>
    <message>
        <source>major</source>
        <translation>grave</translation>
    </message>
    <message>
        <source>critical</source>
        <translation>crítica</translation>
    </message>
    <message>
        <source>Severity</source>
        <translation>Gravedad</translation>
    </message>
    <message>
        <source>Severity: {failure_mode}</source>
        <translation>Gravedad: {failure_mode}</translation>
    </message>
    <message>
        <source>Choose severity…</source>
        <translation>Elija la gravedad…</translation>
    </message>
    <message>
        <source>Evidence note</source>
        <translation>Nota de evidencia</translation>
    </message>
    <message>
        <source>Evidence note: {failure_mode}</source>
        <translation>Nota de evidencia: {failure_mode}</translation>
    </message>
    <message>
        <source>Use selected text as evidence: {failure_mode}</source>
        <translation>Usar el texto seleccionado como evidencia: {failure_mode}</translation>
    </message>
    <message>
        <source>Select words in the response you are rating, then press this (Ctrl+Shift+E).</source>
        <translation>Seleccione palabras de la respuesta que está valorando y pulse aquí (Ctrl+Mayús+E).</translation>
    </message>
    <message>
        <source>Clear evidence quotes: {failure_mode}</source>
        <translation>Borrar las citas de evidencia: {failure_mode}</translation>
    </message>
    <message>
        <source>“{quote}” (characters {start}–{end})</source>
        <translation>«{quote}» (caracteres {start}–{end})</translation>
    </message>
    <message>
        <source>No evidence quotes yet.</source>
        <translation>Todavía no hay citas de evidencia.</translation>
    </message>
</context>
<context>
    <name>FailureModesPanel</name>
    <message>
        <source>Tick each failure mode you see in the response and choose its severity; leave the others unticked (they are recorded as absent).</source>
        <translation>Marque cada modo de fallo que vea en la respuesta y elija su gravedad; deje los demás sin marcar (se registran como ausentes).</translation>
    </message>
    <message>
        <source>Failure modes</source>
        <translation>Modos de fallo</translation>
    </message>
</context>
<context>
    <name>FindBar</name>
    <message>
        <source>Find in scenario and response</source>
        <translation>Buscar en el caso y la respuesta</translation>
    </message>
    <message>
        <source>Find &amp;next</source>
        <translation>Buscar &amp;siguiente</translation>
    </message>
    <message>
        <source>C&amp;lose find</source>
        <translation>Cerrar &amp;búsqueda</translation>
    </message>
    <message>
        <source>Not found</source>
        <translation>No encontrado</translation>
    </message>
</context>
<context>
    <name>FlagRow</name>
    <message>
        <source>Note for your coordinator</source>
        <translation>Nota para la coordinación</translation>
    </message>
    <message>
        <source>What should your coordinator look at?</source>
        <translation>¿Qué debería revisar la coordinación?</translation>
    </message>
</context>
<context>
    <name>HelpPanel</name>
    <message>
        <source>Close ru&amp;bric help</source>
        <translation>Cerrar la ayuda de la rú&amp;brica</translation>
    </message>
    <message>
        <source>F1 opens and closes the rubric help</source>
        <translation>F1 abre y cierra la ayuda de la rúbrica</translation>
    </message>
</context>
<context>
    <name>JobProgress</name>
    <message>
        <source>{done} of {total}</source>
        <translation>{done} de {total}</translation>
    </message>
</context>
<context>
    <name>LanguageMenu</name>
    <message>
        <source>&amp;Language</source>
        <translation>I&amp;dioma</translation>
    </message>
    <message>
        <source>The computer&apos;s language</source>
        <translation>El idioma del equipo</translation>
    </message>
    <message>
        <source>the computer&apos;s language</source>
        <translation>el idioma del equipo</translation>
    </message>
    <message>
        <source>WM-CDP Desktop will use {language} the next time it starts.</source>
        <translation>WM-CDP Desktop usará {language} la próxima vez que se inicie.</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>&amp;Help</source>
        <translation>A&amp;yuda</translation>
    </message>
    <message>
        <source>About WM-CDP Desktop</source>
        <translation>Acerca de WM-CDP Desktop</translation>
    </message>
    <message>
        <source>WM-CDP Desktop</source>
        <translation>WM-CDP Desktop</translation>
    </message>
    <message>
        <source>WM-CDP bundle (*.wmcdp *.zip);;Bundle folder: choose its bundle.json (bundle.json)</source>
        <translation>Paquete WM-CDP (*.wmcdp *.zip);;Carpeta de paquete: elija su bundle.json (bundle.json)</translation>
    </message>
    <message>
        <source>Window content</source>
        <translation>Contenido de la ventana</translation>
    </message>
    <message>
        <source>Receipt code</source>
        <translation>Código de recibo</translation>
    </message>
    <message>
        <source>Close the bundle first (File &gt; Close bundle), then change the rater id.</source>
        <translation>Cierre primero el paquete (Archivo &gt; Cerrar paquete) y después cambie el identificador de evaluador.</translation>
    </message>
    <message>
        <source>Open bundle</source>
        <translation>Abrir paquete</translation>
    </message>
    <message>
        <source>The demo bundle is missing from this installation ({path}).</source>
        <translation>Falta el paquete de demostración en esta instalación ({path}).</translation>
    </message>
    <message>
        <source>Open the bundle {name}?
{path}

The bundle you are rating is saved and closed; you can come back to it from the list of recent bundles.</source>
        <translation>¿Abrir el paquete {name}?
{path}

El paquete que está valorando se guarda y se cierra; puede volver a él desde la lista de paquetes recientes.</translation>
    </message>
    <message>
        <source>Your computer&apos;s clock says {now}, which is before this bundle was made ({then}).</source>
        <translation>El reloj de su ordenador indica {now}, una fecha anterior a la creación de este paquete ({then}).</translation>
    </message>
    <message>
        <source>Your computer&apos;s clock says {now}, which is earlier than work already saved here ({then}).</source>
        <translation>El reloj de su ordenador indica {now}, una fecha anterior al trabajo ya guardado aquí ({then}).</translation>
    </message>
    <message>
        <source>Your computer&apos;s clock says {now}, more than a year after this bundle was made ({then}).</source>
        <translation>El reloj de su ordenador indica {now}, más de un año después de la creación de este paquete ({then}).</translation>
    </message>
    <message>
        <source>Every rating is saved with the date and time, so please set your computer&apos;s date and time correctly before you rate, then open the bundle again. Your ratings are kept either way, and your coordinator will see that the clock was wrong.</source>
        <translation>Cada valoración se guarda con la fecha y la hora: ponga en hora la fecha y la hora de su ordenador antes de valorar y vuelva a abrir el paquete. Sus valoraciones se conservan en cualquier caso, y la coordinación verá que el reloj estaba mal.</translation>
    </message>
    <message>
        <source>Close anyway? Your last changes would be lost.</source>
        <translation>¿Cerrar de todos modos? Se perderían sus últimos cambios.</translation>
    </message>
</context>
<context>
    <name>NotesPanel</name>
    <message>
        <source>Brief rationale (required)</source>
        <translation>Justificación breve (obligatoria)</translation>
    </message>
    <message>
        <source>Best aspect</source>
        <translation>Mejor aspecto</translation>
    </message>
    <message>
        <source>Main concern</source>
        <translation>Principal preocupación</translation>
    </message>
    <message>
        <source>Suggested better clinical move</source>
        <translation>Mejor intervención clínica propuesta</translation>
    </message>
    <message>
        <source>Confidence in this rating</source>
        <translation>Confianza en esta valoración</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>Notas</translation>
    </message>
    <message>
        <source>Not set</source>
        <translation>Sin asignar</translation>
    </message>
</context>
<context>
    <name>PassphraseDialog</name>
    <message>
        <source>&amp;Passphrase</source>
        <translation>&amp;Frase de contraseña</translation>
    </message>
    <message>
        <source>&amp;Show characters</source>
        <translation>&amp;Mostrar los caracteres</translation>
    </message>
    <message>
        <source>Passphrase of {name}</source>
        <translation>Frase de contraseña de {name}</translation>
    </message>
    <message>
        <source>The bundle {name} is encrypted. Type the passphrase your study coordinator gave you for it (words separated by spaces or dashes; capitals do not matter). You type it once while the app is open.</source>
        <translation>El paquete {name} está cifrado. Escriba la frase de contraseña que le dio su coordinador del estudio para él (palabras separadas por espacios o guiones; las mayúsculas no importan). La escribe una sola vez mientras la aplicación está abierta.</translation>
    </message>
    <message>
        <source>The passphrase your study coordinator gave you for this bundle.</source>
        <translation>La frase de contraseña que le dio su coordinador del estudio para este paquete.</translation>
    </message>
    <message>
        <source>Forgotten it? Ask your study coordinator: they can tell you the same passphrase again. Nothing you have already exported is lost.</source>
        <translation>¿La ha olvidado? Pregunte a su coordinador del estudio: puede volver a darle la misma frase. No se pierde nada de lo que ya exportó.</translation>
    </message>
    <message>
        <source>&amp;Open</source>
        <translation>&amp;Abrir</translation>
    </message>
    <message>
        <source>Type the passphrase, or choose Cancel.</source>
        <translation>Escriba la frase de contraseña o elija Cancelar.</translation>
    </message>
</context>
<context>
    <name>PlainText</name>
    <message>
        <source>[Not shown: the last {omitted} characters of this text. The app shows the first {shown} characters of any one text; ask your study coordinator about the rest.]</source>
        <translation>[No se muestran los últimos {omitted} caracteres de este texto. La aplicación muestra los primeros {shown} caracteres de cada texto; consulte el resto con la coordinación del estudio.]</translation>
    </message>
    <message>
        <source>… ({count} more characters not shown)</source>
        <translation>… ({count} caracteres más sin mostrar)</translation>
    </message>
</context>
<context>
    <name>Plurals</name>
    <message numerus="yes">
        <source>… and %Ln more problem(s).</source>
        <translation>
            <numerusform>… y %Ln problema más.</numerusform>
            <numerusform>… y %Ln problemas más.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>Preferences</name>
    <message>
        <source>Settings not changed:</source>
        <translation>No se cambió la configuración:</translation>
    </message>
    <message>
        <source>Settings not saved:</source>
        <translation>Configuración sin guardar:</translation>
    </message>
    <message>
        <source>Settings could not be saved: {error}</source>
        <translation>No se pudo guardar la configuración: {error}</translation>
    </message>
    <message>
        <source>This rater id cannot be used:</source>
        <translation>Este identificador de evaluador no se puede usar:</translation>
    </message>
    <message>
        <source>Seconds without any input after which the task timer pauses:</source>
        <translation>Segundos sin ninguna actividad tras los cuales se pausa el cronómetro de la tarea:</translation>
    </message>
    <message>
        <source>The task timer now pauses after {seconds} s without input.</source>
        <translation>El cronómetro de la tarea se pausa ahora tras {seconds} s sin actividad.</translation>
    </message>
    <message>
        <source>Text size {size} pt</source>
        <translation>Tamaño del texto: {size} pt</translation>
    </message>
</context>
<context>
    <name>RaterDialog</name>
    <message>
        <source>Rater &amp;id</source>
        <translation>&amp;Identificador de evaluador</translation>
    </message>
    <message>
        <source>&amp;Role or background (optional)</source>
        <translation>&amp;Función o formación (opcional)</translation>
    </message>
    <message>
        <source>Who is rating?</source>
        <translation>¿Quién evalúa?</translation>
    </message>
    <message>
        <source>Enter the rater id your study coordinator gave you (letters, digits, - _ and . without spaces). It goes into every rating you submit, names the folder your ratings are kept in, and is remembered on this computer.</source>
        <translation>Escriba el identificador de evaluador que le dio la coordinación del estudio (letras, dígitos, - _ y . sin espacios). Se incluye en cada valoración que envíe, da nombre a la carpeta donde se guardan sus valoraciones y se recuerda en este equipo.</translation>
    </message>
    <message>
        <source>e.g. child psychologist</source>
        <translation>p. ej., psicóloga infantil</translation>
    </message>
    <message>
        <source>A rater id may hold only letters A-Z, digits, - _ and . (at most {max} characters, starting with a letter or digit).</source>
        <translation>Un identificador de evaluador solo puede contener letras A-Z, dígitos, - _ y . (como máximo {max} caracteres, empezando por una letra o un dígito).</translation>
    </message>
    <message>
        <source>Enter your rater id.</source>
        <translation>Escriba su identificador de evaluador.</translation>
    </message>
    <message>
        <source>This rater id has {n} characters; it may have at most {max}.</source>
        <translation>Este identificador de evaluador tiene {n} caracteres; puede tener como máximo {max}.</translation>
    </message>
    <message>
        <source>{name} is a reserved name on Windows (CON, PRN, AUX, NUL, COM1-9 and LPT1-9) and cannot name your folder; choose another rater id.</source>
        <translation>{name} es un nombre reservado en Windows (CON, PRN, AUX, NUL, COM1-9 y LPT1-9) y no puede dar nombre a su carpeta; elija otro identificador de evaluador.</translation>
    </message>
    <message>
        <source>A rater id cannot contain spaces: use for example {suggestion}</source>
        <translation>Un identificador de evaluador no puede contener espacios: use, por ejemplo, {suggestion}</translation>
    </message>
    <message>
        <source>A rater id cannot contain spaces. {rule}</source>
        <translation>Un identificador de evaluador no puede contener espacios. {rule}</translation>
    </message>
    <message>
        <source>A rater id cannot end with a dot.</source>
        <translation>Un identificador de evaluador no puede terminar en punto.</translation>
    </message>
    <message>
        <source>A rater id must start with a letter or digit, not {char}. {rule}</source>
        <translation>Un identificador de evaluador debe empezar por una letra o un dígito, no por {char}. {rule}</translation>
    </message>
    <message>
        <source>The rater id holds an invisible character (U+{code}). {rule}</source>
        <translation>El identificador de evaluador contiene un carácter invisible (U+{code}). {rule}</translation>
    </message>
    <message>
        <source>A rater id cannot contain {char}. {rule}</source>
        <translation>Un identificador de evaluador no puede contener {char}. {rule}</translation>
    </message>
</context>
<context>
    <name>RatingController</name>
    <message>
        <source>Task {id} cannot be shown:</source>
        <translation>No se puede mostrar la tarea {id}:</translation>
    </message>
    <message>
        <source>Demo: you are rating as the demo rater “demo”. Nothing here goes to a study. When your coordinator sends you a bundle, the app asks once for the rater id they gave you.</source>
        <translation>Demostración: está valorando como el evaluador de demostración «demo». Nada de esto va a ningún estudio. Cuando la coordinación le envíe un paquete, la aplicación le pedirá una vez el identificador de evaluador que le hayan dado.</translation>
    </message>
    <message>
        <source>Some saved drafts could not be read and were moved aside (nothing was deleted):</source>
        <translation>Algunos borradores guardados no se pudieron leer y se apartaron (no se borró nada):</translation>
    </message>
    <message>
        <source>Every task is submitted. Use File &gt; Export results… to send them.</source>
        <translation>Todas las tareas están enviadas. Use Archivo &gt; Exportar resultados… para remitirlas.</translation>
    </message>
    <message>
        <source>Unsaved changes…</source>
        <translation>Cambios sin guardar…</translation>
    </message>
    <message>
        <source>Draft saved.</source>
        <translation>Borrador guardado.</translation>
    </message>
    <message>
        <source>Not saved — see the message above</source>
        <translation>Sin guardar: vea el mensaje de arriba</translation>
    </message>
    <message>
        <source>Submitted</source>
        <translation>Enviada</translation>
    </message>
    <message>
        <source>All changes saved ({time})</source>
        <translation>Todos los cambios guardados ({time})</translation>
    </message>
    <message>
        <source>All changes saved</source>
        <translation>Todos los cambios guardados</translation>
    </message>
    <message>
        <source>Nothing entered yet</source>
        <translation>Todavía no hay nada introducido</translation>
    </message>
    <message>
        <source>Not saved: the data folder is gone</source>
        <translation>Sin guardar: la carpeta de datos ya no existe</translation>
    </message>
    <message>
        <source>Session: {time}</source>
        <translation>Sesión: {time}</translation>
    </message>
    <message>
        <source>This task is already submitted. Choose “Revise this rating” to change it.</source>
        <translation>Esta tarea ya está enviada. Elija «Revisar esta valoración» para cambiarla.</translation>
    </message>
    <message>
        <source>Your rating passed its checks: one question before it is saved.</source>
        <translation>Su valoración ha superado las comprobaciones: una pregunta antes de guardarla.</translation>
    </message>
    <message numerus="yes">
        <source>Not submitted: %Ln thing(s) to fix, shown next to each control.</source>
        <translation>
            <numerusform>No enviada: queda %Ln cosa por corregir, indicada junto a su control.</numerusform>
            <numerusform>No enviada: quedan %Ln cosas por corregir, indicadas junto a cada control.</numerusform>
        </translation>
    </message>
    <message>
        <source>Task {position}: “cannot rate” submitted (revision {revision}). {done} of {total} submitted.</source>
        <translation>Tarea {position}: «no se puede valorar» enviado (revisión {revision}). {done} de {total} enviadas.</translation>
    </message>
    <message>
        <source>Task {position}: rating submitted (revision {revision}). {done} of {total} submitted.</source>
        <translation>Tarea {position}: valoración enviada (revisión {revision}). {done} de {total} enviadas.</translation>
    </message>
    <message>
        <source>Calibration feedback is shown beside your rating; Ctrl+PgDown for the next task.</source>
        <translation>La retroalimentación de calibración aparece junto a su valoración; Ctrl+AvPág para la siguiente tarea.</translation>
    </message>
    <message>
        <source>Every task is submitted: use File &gt; Export results… to send them.</source>
        <translation>Todas las tareas están enviadas: use Archivo &gt; Exportar resultados… para remitirlas.</translation>
    </message>
    <message>
        <source>Every task is submitted. Use File &gt; Export results… to save the file for your coordinator.</source>
        <translation>Todas las tareas están enviadas. Use Archivo &gt; Exportar resultados… para guardar el archivo para la coordinación del estudio.</translation>
    </message>
    <message>
        <source>Only a submitted rating can be revised.</source>
        <translation>Solo se puede revisar una valoración enviada.</translation>
    </message>
</context>
<context>
    <name>RatingForm</name>
    <message>
        <source>S&amp;ubmit rating</source>
        <translation>Env&amp;iar valoración</translation>
    </message>
    <message>
        <source>S&amp;ubmit “cannot rate”</source>
        <translation>Env&amp;iar «no se puede valorar»</translation>
    </message>
    <message>
        <source>&amp;Revise this rating</source>
        <translation>&amp;Revisar esta valoración</translation>
    </message>
    <message>
        <source>&amp;Discard revision</source>
        <translation>&amp;Descartar la revisión</translation>
    </message>
    <message>
        <source>Change this submitted rating: a new revision is written (Ctrl+Shift+R)</source>
        <translation>Cambiar esta valoración enviada: se escribe una nueva revisión (Ctrl+Mayús+R)</translation>
    </message>
    <message>
        <source>Fla&amp;g for coordinator</source>
        <translation>&amp;Marcar para la coordinación</translation>
    </message>
    <message>
        <source>Add a note for your study coordinator; it is sent with this task.</source>
        <translation>Añada una nota para la coordinación del estudio; se envía con esta tarea.</translation>
    </message>
    <message>
        <source>Cannot rate this tas&amp;k</source>
        <translation>No puedo valorar esta tare&amp;a</translation>
    </message>
    <message>
        <source>Send this task back without scores, with the reason (broken content, outside your expertise, a conflict of interest, or another).</source>
        <translation>Devolver esta tarea sin puntuaciones, con el motivo (contenido dañado, fuera de su especialidad, un conflicto de intereses u otro).</translation>
    </message>
    <message>
        <source>Scores page</source>
        <translation>Página de puntuaciones</translation>
    </message>
    <message>
        <source>Failure modes page</source>
        <translation>Página de modos de fallo</translation>
    </message>
    <message>
        <source>Notes page</source>
        <translation>Página de notas</translation>
    </message>
    <message>
        <source>Calibration feedback page</source>
        <translation>Página de retroalimentación de calibración</translation>
    </message>
    <message>
        <source>Cannot rate page</source>
        <translation>Página de «no se puede valorar»</translation>
    </message>
    <message>
        <source>Rating pages</source>
        <translation>Páginas de la valoración</translation>
    </message>
    <message>
        <source>Scores</source>
        <translation>Puntuaciones</translation>
    </message>
    <message>
        <source>Failure modes</source>
        <translation>Modos de fallo</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>Notas</translation>
    </message>
    <message>
        <source>Calibration feedback</source>
        <translation>Retroalimentación de calibración</translation>
    </message>
    <message>
        <source>Check and submit this rating (Ctrl+Enter)</source>
        <translation>Comprobar y enviar esta valoración (Ctrl+Intro)</translation>
    </message>
    <message numerus="yes">
        <source>Failure modes (%Ln ticked)</source>
        <translation>
            <numerusform>Modos de fallo (%Ln marcado)</numerusform>
            <numerusform>Modos de fallo (%Ln marcados)</numerusform>
        </translation>
    </message>
    <message>
        <source>“Cannot rate” submitted (revision {revision}) on {when}; active time {time}. It is read-only. To change it, choose “{revise}”: a new revision is written and this one is kept.</source>
        <translation>«No se puede valorar» enviado (revisión {revision}) el {when}; tiempo activo {time}. Es de solo lectura. Para cambiarlo, elija «{revise}»: se escribe una nueva revisión y esta se conserva.</translation>
    </message>
    <message>
        <source>Submitted (revision {revision}) on {when}; active time {time}. The rating below is read-only. To change it, choose “{revise}”: a new revision is written and this one is kept.</source>
        <translation>Enviada (revisión {revision}) el {when}; tiempo activo {time}. La valoración de abajo es de solo lectura. Para cambiarla, elija «{revise}»: se escribe una nueva revisión y esta se conserva.</translation>
    </message>
    <message>
        <source>Revising your submitted rating (revision {base}). Submitting writes revision {next}; revision {base} is kept.</source>
        <translation>Está revisando su valoración enviada (revisión {base}). Al enviar se escribe la revisión {next}; la revisión {base} se conserva.</translation>
    </message>
    <message>
        <source>WM-CDP Desktop</source>
        <translation>WM-CDP Desktop</translation>
    </message>
    <message numerus="yes">
        <source>Not submitted yet: %Ln thing(s) left to fix, shown next to each control.</source>
        <translation>
            <numerusform>Aún no enviada: queda %Ln cosa por corregir, indicada junto a su control.</numerusform>
            <numerusform>Aún no enviada: quedan %Ln cosas por corregir, indicadas junto a cada control.</numerusform>
        </translation>
    </message>
    <message>
        <source>Select some words in the response you are rating first.</source>
        <translation>Seleccione primero algunas palabras de la respuesta que está valorando.</translation>
    </message>
    <message>
        <source>This rating is submitted: choose “Revise this rating” to change it.</source>
        <translation>Esta valoración está enviada: elija «Revisar esta valoración» para cambiarla.</translation>
    </message>
    <message>
        <source>Tick a failure mode first (or move to the one the quote is for), then press Ctrl+Shift+E.</source>
        <translation>Marque primero un modo de fallo (o vaya al que corresponde la cita) y después pulse Ctrl+Mayús+E.</translation>
    </message>
    <message numerus="yes">
        <source>%Ln to fix</source>
        <translation>
            <numerusform>%Ln por corregir</numerusform>
            <numerusform>%Ln por corregir</numerusform>
        </translation>
    </message>
    <message>
        <source>Not set yet. Choose a score or tick N/A.</source>
        <translation>Todavía sin asignar. Elija una puntuación o marque N/A.</translation>
    </message>
    <message>
        <source>Not set yet. Choose a score.</source>
        <translation>Todavía sin asignar. Elija una puntuación.</translation>
    </message>
    <message>
        <source>Choose a severity.</source>
        <translation>Elija una gravedad.</translation>
    </message>
    <message>
        <source>A brief rationale is required.</source>
        <translation>La justificación breve es obligatoria.</translation>
    </message>
    <message>
        <source>Choose why you cannot rate this task.</source>
        <translation>Elija por qué no puede valorar esta tarea.</translation>
    </message>
    <message>
        <source>Say in a few words why you cannot rate this task.</source>
        <translation>Indique en pocas palabras por qué no puede valorar esta tarea.</translation>
    </message>
    <message>
        <source>Write a note for your coordinator, or remove the flag.</source>
        <translation>Escriba una nota para la coordinación o quite la marca.</translation>
    </message>
    <message numerus="yes">
        <source>Not submitted: %Ln thing(s) to fix, shown next to each control.</source>
        <translation>
            <numerusform>No enviada: queda %Ln cosa por corregir, indicada junto a su control.</numerusform>
            <numerusform>No enviada: quedan %Ln cosas por corregir, indicadas junto a cada control.</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>RatingPage</name>
    <message>
        <source>Retr&amp;y saving</source>
        <translation>Reintentar &amp;guardar</translation>
    </message>
    <message>
        <source>Rubric help</source>
        <translation>Ayuda de la rúbrica</translation>
    </message>
    <message>
        <source>Rubric help text</source>
        <translation>Texto de la ayuda de la rúbrica</translation>
    </message>
    <message>
        <source>&amp;Dismiss this message</source>
        <translation>&amp;Ocultar este mensaje</translation>
    </message>
    <message>
        <source>{title} (version {version})</source>
        <translation>{title} (versión {version})</translation>
    </message>
    <message>
        <source>Dimensions</source>
        <translation>Dimensiones</translation>
    </message>
    <message>
        <source>when the dimension does not apply</source>
        <translation>cuando la dimensión no es aplicable</translation>
    </message>
    <message>
        <source>N/A allowed: {guidance}</source>
        <translation>N/A permitido: {guidance}</translation>
    </message>
    <message>
        <source>Failure modes</source>
        <translation>Modos de fallo</translation>
    </message>
    <message>
        <source>Confidence</source>
        <translation>Confianza</translation>
    </message>
    <message>
        <source>Dismiss the language note</source>
        <translation>Ocultar la nota sobre el idioma</translation>
    </message>
    <message>
        <source>Rubr&amp;ic help</source>
        <translation>Ayuda de la rúbri&amp;ca</translation>
    </message>
    <message>
        <source>The rubric beside the form, at the dimension in focus (F1)</source>
        <translation>La rúbrica junto al formulario, en la dimensión con el foco (F1)</translation>
    </message>
</context>
<context>
    <name>ReceiptDialog</name>
    <message>
        <source>Results exported</source>
        <translation>Resultados exportados</translation>
    </message>
    <message>
        <source>Your receipt &amp;code</source>
        <translation>Su &amp;código de recibo</translation>
    </message>
    <message>
        <source>Receipt code</source>
        <translation>Código de recibo</translation>
    </message>
    <message>
        <source>Send this code to your study coordinator separately from the file.</source>
        <translation>Envíe este código a la coordinación del estudio por separado del archivo.</translation>
    </message>
    <message>
        <source>C&amp;opy code</source>
        <translation>C&amp;opiar código</translation>
    </message>
    <message>
        <source>Copy the receipt code</source>
        <translation>Copiar el código de recibo</translation>
    </message>
    <message>
        <source>Copy status</source>
        <translation>Estado de la copia</translation>
    </message>
    <message>
        <source>Send this code to your study coordinator separately from the file: for example in the body of your email, in a text message, or read it out on the phone. It lets them check that the file they receive is exactly the one you exported. You get a new code each time you export.</source>
        <translation>Envíe este código a la coordinación del estudio por separado del archivo: por ejemplo en el cuerpo de su correo, en un mensaje de texto o leyéndolo por teléfono. Así pueden comprobar que el archivo que reciben es exactamente el que usted exportó. Cada exportación tiene un código nuevo.</translation>
    </message>
    <message>
        <source>Copied: paste it into your message to the coordinator.</source>
        <translation>Copiado: péguelo en su mensaje a la coordinación.</translation>
    </message>
</context>
<context>
    <name>ResultsExporter</name>
    <message>
        <source>Export results</source>
        <translation>Exportar resultados</translation>
    </message>
    <message>
        <source>Results (*.zip)</source>
        <translation>Resultados (*.zip)</translation>
    </message>
    <message>
        <source>Sealed results (*.wmcdp-sealed)</source>
        <translation>Resultados sellados (*.wmcdp-sealed)</translation>
    </message>
    <message>
        <source>An export is already being written; wait for it to finish.</source>
        <translation>Ya se está escribiendo una exportación; espere a que termine.</translation>
    </message>
    <message>
        <source>Exporting results to {name}</source>
        <translation>Exportando los resultados a {name}</translation>
    </message>
    <message>
        <source>Cancel export</source>
        <translation>Cancelar la exportación</translation>
    </message>
    <message>
        <source>The results could not be exported:</source>
        <translation>No se pudieron exportar los resultados:</translation>
    </message>
    <message>
        <source>Nothing was written under that name.</source>
        <translation>No se escribió nada con ese nombre.</translation>
    </message>
    <message>
        <source>Export cancelled: nothing was written.</source>
        <translation>Exportación cancelada: no se escribió nada.</translation>
    </message>
</context>
<context>
    <name>RubricLanguage</name>
    <message>
        <source>The rubric is shown in translation (language: {language}; written in: {original}). The translation has not been clinically validated: if a word seems to mean something other than you would expect, ask your study coordinator.</source>
        <translation>La rúbrica se muestra traducida (idioma: {language}; original: {original}). La traducción no ha sido validada clínicamente: si una palabra parece significar algo distinto de lo que esperaría, consulte a la coordinación del estudio.</translation>
    </message>
    <message>
        <source>This bundle&apos;s rubric has no translation into your language ({language}): its dimensions, levels and failure modes are shown as written ({original}).</source>
        <translation>La rúbrica de este paquete no tiene traducción a su idioma ({language}): sus dimensiones, niveles y modos de fallo se muestran tal como están escritos ({original}).</translation>
    </message>
</context>
<context>
    <name>RubricPanel</name>
    <message>
        <source>Scores</source>
        <translation>Puntuaciones</translation>
    </message>
</context>
<context>
    <name>StatusBar</name>
    <message>
        <source>Session: {time}</source>
        <translation>Sesión: {time}</translation>
    </message>
</context>
<context>
    <name>TaskList</name>
    <message>
        <source>&amp;Tasks</source>
        <translation>&amp;Tareas</translation>
    </message>
    <message>
        <source>Progress</source>
        <translation>Progreso</translation>
    </message>
    <message>
        <source>{done} of {total} submitted</source>
        <translation>{done} de {total} enviadas</translation>
    </message>
</context>
<context>
    <name>TaskListModel</name>
    <message>
        <source>Not started</source>
        <translation>Sin empezar</translation>
    </message>
    <message>
        <source>In progress</source>
        <translation>En curso</translation>
    </message>
    <message>
        <source>Submitted</source>
        <translation>Enviada</translation>
    </message>
    <message>
        <source>Task id (for support): {task_id}</source>
        <translation>Identificador de la tarea (para soporte): {task_id}</translation>
    </message>
    <message>
        <source>Cannot rate</source>
        <translation>No se puede valorar</translation>
    </message>
    <message>
        <source>{state} (cannot rate)</source>
        <translation>{state} (no se puede valorar)</translation>
    </message>
    <message>
        <source>flagged</source>
        <translation>marcada</translation>
    </message>
    <message>
        <source>{state} (revising)</source>
        <translation>{state} (en revisión)</translation>
    </message>
</context>
<context>
    <name>TaskView</name>
    <message>
        <source>Scenario and conversation so far</source>
        <translation>Caso y conversación hasta ahora</translation>
    </message>
    <message>
        <source>The response you are rating</source>
        <translation>La respuesta que está valorando</translation>
    </message>
    <message>
        <source>Show as &amp;plain text</source>
        <translation>Mostrar como texto &amp;plano</translation>
    </message>
    <message>
        <source>Scenario and response</source>
        <translation>Caso y respuesta</translation>
    </message>
    <message>
        <source>Parent</source>
        <translation>Progenitor</translation>
    </message>
    <message>
        <source>Caregiver</source>
        <translation>Cuidador</translation>
    </message>
    <message>
        <source>Child</source>
        <translation>Niño o niña</translation>
    </message>
    <message>
        <source>Adolescent</source>
        <translation>Adolescente</translation>
    </message>
    <message>
        <source>Clinician</source>
        <translation>Profesional clínico</translation>
    </message>
    <message>
        <source>AI assistant</source>
        <translation>Asistente de IA</translation>
    </message>
    <message>
        <source>Teacher</source>
        <translation>Docente</translation>
    </message>
    <message>
        <source>Other</source>
        <translation>Otro</translation>
    </message>
    <message>
        <source>Show the scenario&apos;s turns and the response exactly as written (markdown marks and all)</source>
        <translation>Mostrar los turnos del escenario y la respuesta exactamente como están escritos (con las marcas de markdown)</translation>
    </message>
    <message>
        <source>Rate this response as the next move in the conversation above. Select words here and use “Use selected text as evidence” on a failure mode (Ctrl+Shift+E) to quote them.</source>
        <translation>Valore esta respuesta como la siguiente intervención en la conversación de arriba. Seleccione palabras aquí y use «Usar el texto seleccionado como evidencia» en un modo de fallo (Ctrl+Mayús+E) para citarlas.</translation>
    </message>
    <message>
        <source>Your study shows every text exactly as written</source>
        <translation>Su estudio muestra todos los textos exactamente como están escritos</translation>
    </message>
    <message>
        <source>Task id (for support): {task_id}</source>
        <translation>Identificador de la tarea (para soporte): {task_id}</translation>
    </message>
    <message>
        <source>Task {position} of {total}</source>
        <translation>Tarea {position} de {total}</translation>
    </message>
    <message>
        <source>Clinical domain: {domain}    Scenario types: {types}</source>
        <translation>Ámbito clínico: {domain}    Tipos de caso: {types}</translation>
    </message>
    <message>
        <source>Context</source>
        <translation>Contexto</translation>
    </message>
    <message>
        <source>Age band: {age}
Setting: {setting}
Speakers: {speakers}</source>
        <translation>Franja de edad: {age}
Entorno: {setting}
Participantes: {speakers}</translation>
    </message>
    <message>
        <source>Conversation so far</source>
        <translation>Conversación hasta ahora</translation>
    </message>
    <message>
        <source>(no earlier turns)</source>
        <translation>(no hay turnos anteriores)</translation>
    </message>
    <message>
        <source>Turn {number} — {who}:</source>
        <translation>Turno {number} — {who}:</translation>
    </message>
</context>
<context>
    <name>TimerWidget</name>
    <message>
        <source>&amp;Pause timer</source>
        <translation>&amp;Pausar el cronómetro</translation>
    </message>
    <message>
        <source>&amp;Resume timer</source>
        <translation>&amp;Reanudar el cronómetro</translation>
    </message>
    <message>
        <source>counting</source>
        <translation>en marcha</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>en pausa</translation>
    </message>
    <message>
        <source>paused: no activity</source>
        <translation>en pausa: sin actividad</translation>
    </message>
    <message>
        <source>paused: window in background</source>
        <translation>en pausa: ventana en segundo plano</translation>
    </message>
    <message>
        <source>not counting</source>
        <translation>detenido</translation>
    </message>
    <message>
        <source>Time on this task: {time}</source>
        <translation>Tiempo en esta tarea: {time}</translation>
    </message>
    <message>
        <source>Pause or resume the task timer (Ctrl+Shift+P)</source>
        <translation>Pausar o reanudar el cronómetro de la tarea (Ctrl+Mayús+P)</translation>
    </message>
    <message>
        <source>Time on this task: {time} ({status})</source>
        <translation>Tiempo en esta tarea: {time} ({status})</translation>
    </message>
</context>
<context>
    <name>WelcomeScreen</name>
    <message>
        <source>&amp;Open bundle…</source>
        <translation>Abrir &amp;paquete…</translation>
    </message>
    <message>
        <source>Try the d&amp;emo bundle</source>
        <translation>Probar el paquete de d&amp;emostración</translation>
    </message>
    <message>
        <source>&amp;Recent bundles</source>
        <translation>Paquetes &amp;recientes</translation>
    </message>
    <message>
        <source>&amp;Change rater id…</source>
        <translation>Cambiar el &amp;identificador de evaluador…</translation>
    </message>
    <message>
        <source>WM-CDP Desktop</source>
        <translation>WM-CDP Desktop</translation>
    </message>
    <message>
        <source>Rate blinded AI responses for the WholeMind Clinical Decision Benchmark.
Open the bundle your study coordinator sent you. Everything stays on this computer: your work is saved as you go, and you send the results back with File &gt; Export results…</source>
        <translation>Valore respuestas de IA enmascaradas para el WholeMind Clinical Decision Benchmark.
Abra el paquete que le envió la coordinación del estudio. Todo se queda en este equipo: su trabajo se guarda sobre la marcha y los resultados se devuelven con Archivo &gt; Exportar resultados…</translation>
    </message>
    <message>
        <source>No bundles opened yet.</source>
        <translation>Todavía no se ha abierto ningún paquete.</translation>
    </message>
    <message>
        <source>Double-click (or press Enter on) a bundle to open it again</source>
        <translation>Haga doble clic en un paquete (o pulse Intro sobre él) para volver a abrirlo</translation>
    </message>
    <message>
        <source>Rating as: {rater} ({role})</source>
        <translation>Evaluando como: {rater} ({role})</translation>
    </message>
    <message>
        <source>Rating as: {rater}</source>
        <translation>Evaluando como: {rater}</translation>
    </message>
    <message>
        <source>Rater id not set yet: you will be asked for it when you open a bundle.</source>
        <translation>Todavía no hay identificador de evaluador: se le pedirá al abrir un paquete.</translation>
    </message>
</context>
<context>
    <name>WindowMenus</name>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Archivo</translation>
    </message>
    <message>
        <source>&amp;Task</source>
        <translation>&amp;Tarea</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ver</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>&amp;Configuración</translation>
    </message>
    <message>
        <source>&amp;Larger text</source>
        <translation>Texto más &amp;grande</translation>
    </message>
    <message>
        <source>&amp;Smaller text</source>
        <translation>Texto más &amp;pequeño</translation>
    </message>
    <message>
        <source>Rubric &amp;help</source>
        <translation>&amp;Ayuda de la rúbrica</translation>
    </message>
    <message>
        <source>&amp;Rater id…</source>
        <translation>&amp;Identificador de evaluador…</translation>
    </message>
    <message>
        <source>&amp;Idle timeout…</source>
        <translation>&amp;Tiempo de inactividad…</translation>
    </message>
    <message>
        <source>&amp;Open bundle…</source>
        <translation>&amp;Abrir paquete…</translation>
    </message>
    <message>
        <source>Open the &amp;demo bundle</source>
        <translation>Abrir el paquete de &amp;demostración</translation>
    </message>
    <message>
        <source>&amp;Export results…</source>
        <translation>&amp;Exportar resultados…</translation>
    </message>
    <message>
        <source>&amp;Close bundle</source>
        <translation>&amp;Cerrar paquete</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Salir</translation>
    </message>
    <message>
        <source>&amp;Submit rating</source>
        <translation>&amp;Enviar valoración</translation>
    </message>
    <message>
        <source>Save &amp;draft now</source>
        <translation>Guardar &amp;borrador ahora</translation>
    </message>
    <message>
        <source>&amp;Next task</source>
        <translation>&amp;Siguiente tarea</translation>
    </message>
    <message>
        <source>&amp;Previous task</source>
        <translation>Tarea &amp;anterior</translation>
    </message>
    <message>
        <source>Next &amp;unfinished task</source>
        <translation>Siguiente tarea sin &amp;terminar</translation>
    </message>
    <message>
        <source>Use selected text as &amp;evidence</source>
        <translation>Usar el texto seleccionado como e&amp;videncia</translation>
    </message>
    <message>
        <source>&amp;Pause or resume the timer</source>
        <translation>&amp;Pausar o reanudar el cronómetro</translation>
    </message>
    <message>
        <source>&amp;Revise this rating</source>
        <translation>&amp;Revisar esta valoración</translation>
    </message>
    <message>
        <source>&amp;Find…</source>
        <translation>B&amp;uscar…</translation>
    </message>
</context>
<context>
    <name>_Summary</name>
    <message numerus="yes">
        <source>Not included: %Ln task(s) started but not submitted yet.</source>
        <translation>
            <numerusform>No incluida: %Ln tarea empezada pero aún no enviada.</numerusform>
            <numerusform>No incluidas: %Ln tareas empezadas pero aún no enviadas.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not included: %Ln revision(s) you have not submitted yet (the earlier submitted rating is included).</source>
        <translation>
            <numerusform>No incluida: %Ln revisión que aún no ha enviado (se incluye la valoración enviada anterior).</numerusform>
            <numerusform>No incluidas: %Ln revisiones que aún no ha enviado (se incluyen las valoraciones enviadas anteriores).</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not included: %Ln flag(s) for your coordinator on tasks not submitted yet. Submit a task to send its flag.</source>
        <translation>
            <numerusform>No incluida: %Ln marca para la coordinación en tareas aún no enviadas. Envíe la tarea para que su marca llegue.</numerusform>
            <numerusform>No incluidas: %Ln marcas para la coordinación en tareas aún no enviadas. Envíe cada tarea para que su marca llegue.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Exported %Ln submitted rating(s) of {total} tasks (with every earlier revision) to:</source>
        <translation>
            <numerusform>Se exportó %Ln valoración enviada de {total} tareas (con todas las revisiones anteriores) a:</numerusform>
            <numerusform>Se exportaron %Ln valoraciones enviadas de {total} tareas (con todas las revisiones anteriores) a:</numerusform>
        </translation>
    </message>
    <message>
        <source>Send this file to your study coordinator.</source>
        <translation>Envíe este archivo a la coordinación del estudio.</translation>
    </message>
</context>
<context>
    <name>app</name>
    <message>
        <source>Details were written to {path}.</source>
        <translation>Los detalles se escribieron en {path}.</translation>
    </message>
    <message>
        <source>Details could not be written to a log file in {folder}.</source>
        <translation>No se pudieron escribir los detalles en un archivo de registro en {folder}.</translation>
    </message>
    <message>
        <source>Something unexpected went wrong. Your saved drafts and ratings are safe on disk.
{where} Please send that file to your study coordinator.</source>
        <translation>Algo inesperado ha fallado. Sus borradores y valoraciones guardados están a salvo en el disco.
{where} Envíe ese archivo a la coordinación del estudio.</translation>
    </message>
</context>
<context>
    <name>system_check</name>
    <message>
        <source>WM-CDP Desktop cannot open its window: this computer lacks system libraries that Qt needs to show windows on X11.
On Debian or Ubuntu, install them with:
  sudo apt install {packages}
(Other Linux systems: install the xcb-util libraries of the same names.)</source>
        <translation>WM-CDP Desktop no puede abrir su ventana: a este equipo le faltan bibliotecas del sistema que Qt necesita para mostrar ventanas en X11.
En Debian o Ubuntu, instálelas con:
  sudo apt install {packages}
(Otros sistemas Linux: instale las bibliotecas xcb-util del mismo nombre.)</translation>
    </message>
</context>
</TS>
