@ outside_data.s — the inputs of the outside-program ROMs, in ROM as they are (.incbin; the
@ build passes the directories with -I).
    .section .rodata.outside, "a", %progbits
    .balign 4
    .global outside_script, outside_script_end
outside_script:
    .incbin "outside_script.lua"
outside_script_end:
    .global outside_json, outside_json_end
    .balign 4
outside_json:
    .incbin "test1"
    .byte 0
    .incbin "test2"
    .byte 0
    .incbin "test3"
    .byte 0
    .incbin "test4"
    .byte 0
    .incbin "test5"
    .byte 0
outside_json_end:
