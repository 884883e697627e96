# newdoc id = sample-en
# sent_id = en-1
# text = The committee approved the plan on Monday.
1	The	the	DET	DT	Definite=Def|PronType=Art	2	det	_	_
2	committee	committee	NOUN	NN	Number=Sing	3	nsubj	_	_
3	approved	approve	VERB	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	0	root	_	_
4	the	the	DET	DT	Definite=Def|PronType=Art	5	det	_	_
5	plan	plan	NOUN	NN	Number=Sing	3	obj	_	_
6	on	on	ADP	IN	_	7	case	_	_
7	Monday	Monday	PROPN	NNP	Number=Sing	3	obl	_	SpaceAfter=No
8	.	.	PUNCT	.	_	3	punct	_	_

# sent_id = en-2
# text = A hearing is scheduled on the issue today.
# note = non-projective: "on the issue" modifies "hearing" across the verb
1	A	a	DET	DT	Definite=Ind|PronType=Art	2	det	_	_
2	hearing	hearing	NOUN	NN	Number=Sing	4	nsubj:pass	_	_
3	is	be	AUX	VBZ	Mood=Ind|Tense=Pres|VerbForm=Fin	4	aux:pass	_	_
4	scheduled	schedule	VERB	VBN	Tense=Past|VerbForm=Part|Voice=Pass	0	root	_	_
5	on	on	ADP	IN	_	7	case	_	_
6	the	the	DET	DT	Definite=Def|PronType=Art	7	det	_	_
7	issue	issue	NOUN	NN	Number=Sing	2	nmod	_	_
8	today	today	NOUN	NN	Number=Sing	4	obl:tmod	_	SpaceAfter=No
9	.	.	PUNCT	.	_	4	punct	_	_

# sent_id = en-3
# text = We did not go, and neither did they.
# note = an empty node (8.1) for the elided verb, as in enhanced UD
1	We	we	PRON	PRP	Case=Nom|Number=Plur|Person=1|PronType=Prs	4	nsubj	4:nsubj	_
2	did	do	AUX	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	4	aux	4:aux	_
3	not	not	PART	RB	_	4	advmod	4:advmod	_
4	go	go	VERB	VB	VerbForm=Inf	0	root	0:root	SpaceAfter=No
5	,	,	PUNCT	,	_	9	punct	8.1:punct	_
6	and	and	CCONJ	CC	_	9	cc	8.1:cc	_
7	neither	neither	ADV	RB	_	9	advmod	8.1:advmod	_
8	did	do	AUX	VBD	Mood=Ind|Tense=Past|VerbForm=Fin	9	aux	8.1:aux	_
8.1	go	go	VERB	VB	_	_	_	4:conj	CopyOf=4
9	they	they	PRON	PRP	Case=Nom|Number=Plur|Person=3|PronType=Prs	4	conj	8.1:nsubj	SpaceAfter=No
10	.	.	PUNCT	.	_	4	punct	4:punct	_

